/**
 * `prompts resend --ambiguous` compares what its agent job shows after the send with what the
 * ledger recorded of it before the send (status, PR link, archivedAt), also after a recovery from
 * the ledger: any change says "probably received" and is named; a create cannot be checked. Those
 * flagged are not resent unless `--include-received` is given.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSeededArchived } from '../../src/emulator/index.js';
import { UsageError } from '../../src/errors.js';
import { requestRecovery, resendAmbiguous, waitForRecovery } from '../../src/prompts/index.js';
import { PromptKeys } from '../../src/prompts/prompt-keys.js';
import { readPromptLedger } from '../../src/warehouse/prompt-ledger.js';
import { openPromptStack, type PromptStack } from '../support/prompts-stack.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { runCli } from '../support/run-cli.js';

const SEED = 2511;
let stack: PromptStack;
beforeAll(async () => {
  stack = await openPromptStack({ emulator: { seed: SEED, agentTimeMs: 100 } });
});
let lossRedis: TestRedis | undefined;
afterAll(async () => {
  await stack?.close();
  await lossRedis?.stop();
});

function liveJobs(project: string, count: number): string[] {
  const jobs: string[] = [];
  for (let n = 1; jobs.length < count; n++) if (!isSeededArchived(SEED, project, `job-${n}`)) jobs.push(`job-${n}`);
  return jobs;
}

/** A batch whose every message is refused with a 503 before processing: each ends ambiguous. */
async function ambiguousBatch(project: string, count: number) {
  const jobIds = liveJobs(project, count);
  stack.emulator.control.script('message', jobIds.map(() => ({ kind: 'status' as const, status: 503, when: 'before' as const })));
  const batch = await stack.submit(jobIds.map((jobId, i) => ({ projectId: project, jobId, prompt: `maybe received ${project} ${i}` })));
  expect((await stack.finish(batch.batchId)).byStatus.ambiguous).toBe(count);
  return { ...batch, jobIds };
}

const deps = () => ({ redis: stack.runtime.redis, queue: stack.runtime.queue('prompts'), prefix: stack.config.queuePrefix });

describe('prompts resend --ambiguous', () => {
  it('records on the sending mark what the agent job showed before the send', async () => {
    const batch = await ambiguousBatch('seen-before', 1);
    const [entry] = await readPromptLedger(stack.warehouse, { batchId: batch.batchId });
    const before = (await stack.store.read(batch.promptIds[0]!))!.before;
    expect(before).toBeDefined();
    expect(JSON.parse(entry!.seenBefore)).toEqual(before);
  });

  it('names a PR link, status or archivedAt change after the send as probably received, and does not resend those without --include-received', async () => {
    const batch = await ambiguousBatch('changed', 4);
    const keys = new PromptKeys(stack.config.queuePrefix);
    const [prLinkChanged, statusChanged, archivedChanged, unchanged] = batch.promptIds as [string, string, string, string];
    // As the polls after the send would have left them, had the job moved.
    await stack.runtime.redis.hset(keys.prompt(prLinkChanged), 'prLink', 'https://github.com/acme/docs/pull/77');
    const before = (await stack.store.read(statusChanged))!.before!;
    await stack.runtime.redis.hset(keys.prompt(statusChanged), 'lastStatus', before.status === 'failed' ? 'completed' : 'failed');
    await stack.runtime.redis.hset(keys.prompt(archivedChanged), 'lastArchivedAt', '2026-11-26T10:00:00.000Z');

    const resend = await runCli(['prompts', 'resend', batch.batchId, '--ambiguous'], stack.env);
    expect(resend.code, resend.stderr).toBe(0);
    const [warning, ...rest] = resend.stderr.trim().split('\n');
    expect(rest).toEqual([]);
    expect(warning).toMatch(/^warning: 3 ambiguous prompt\(s\) most likely received \(their agent job changed after the send\), not resent \(--include-received sends them anyway\): /);
    expect(warning).toContain(`${prLinkChanged} (PR link `);
    expect(warning).toContain('→ https://github.com/acme/docs/pull/77)');
    expect(warning).toContain(`${statusChanged} (status ${before.status} → `);
    expect(warning).toContain(`${archivedChanged} (archivedAt `);
    expect(warning).not.toContain(unchanged);
    expect(resend.stdout).toBe(`batch ${batch.batchId}: 1 ambiguous prompt(s) queued again\n`);
    const status = await stack.finish(batch.batchId);
    expect(status.prompts!.filter((p) => p.status === 'ambiguous').map((p) => p.promptId).sort()).toEqual([prLinkChanged, statusChanged, archivedChanged].sort());

    const all = await resendAmbiguous(deps(), batch.batchId, { includeReceived: true });
    expect(all.resent.sort()).toEqual([prLinkChanged, statusChanged, archivedChanged].sort());
    await stack.finish(batch.batchId);
  });

  it('names an ambiguous create as one that cannot be checked, and does not resend it without --include-received', async () => {
    stack.emulator.control.script('create', [{ kind: 'status', status: 503, when: 'before' }]);
    const batch = await stack.submit([{ projectId: 'create-unknown', prompt: 'start the migration guide' }], { allowCreate: true });
    expect((await stack.finish(batch.batchId)).byStatus.ambiguous).toBe(1);
    const result = await resendAmbiguous(deps(), batch.batchId);
    expect(result.resent).toEqual([]);
    expect(result.uncheckable).toEqual([{ promptId: batch.promptIds[0], why: 'a create: a job it may have made is not found by looking' }]);
    expect(result.withheld).toEqual(batch.promptIds);
  });
});

describe('prompts resend --ambiguous of a send with no look at its job before it', () => {
  it('withholds it as uncheckable, and resends it only with --include-received', async () => {
    const batch = await ambiguousBatch('unseen-before', 1);
    const promptId = batch.promptIds[0]!;
    // As a send made without a look at its job first would have left it.
    await stack.runtime.redis.hdel(new PromptKeys(stack.config.queuePrefix).prompt(promptId), 'before');
    expect((await stack.store.read(promptId))!.before).toBeUndefined();

    const withheld = await resendAmbiguous(deps(), batch.batchId);
    expect(withheld.resent).toEqual([]);
    expect(withheld.uncheckable).toEqual([{ promptId, why: 'its agent job was not seen before the send' }]);
    expect(withheld.withheld).toEqual([promptId]);

    const forced = await resendAmbiguous(deps(), batch.batchId, { includeReceived: true });
    expect(forced.resent).toEqual([promptId]);
    await stack.finish(batch.batchId);
  });
});

describe('prompts resend --prompt ID', () => {
  it('refuses a prompt that is not ambiguous, naming its status, and one not in the batch, and leaves the batch as it was', async () => {
    const [first, second] = liveJobs('resend-one', 2) as [string, string];
    stack.emulator.control.script('message', [{ kind: 'status', status: 503, when: 'before' }]);
    const batch = await stack.submit([
      { projectId: 'resend-one', jobId: first, prompt: 'maybe received' },
      { projectId: 'resend-one', jobId: second, prompt: 'surely received' },
    ]);
    const before = await stack.finish(batch.batchId);
    const sent = before.prompts!.find((p) => p.status !== 'ambiguous')!;
    expect(sent.status).not.toBe('ambiguous');

    await expect(resendAmbiguous(deps(), batch.batchId, { promptId: sent.promptId })).rejects.toThrow(
      new UsageError(`--prompt: ${sent.promptId} is ${sent.status}; only a final ambiguous prompt can be resent`),
    );
    await expect(resendAmbiguous(deps(), batch.batchId, { promptId: 'p-0000' })).rejects.toThrow(`--prompt: p-0000 is not a prompt of batch ${batch.batchId}`);
    expect((await stack.finish(batch.batchId)).byStatus).toEqual(before.byStatus);
  });
});

describe('prompts resend --ambiguous after a Redis loss', () => {
  beforeAll(async () => {
    await stack.close();
    lossRedis = await startTestRedis(['--appendonly', 'yes', '--maxmemory-policy', 'noeviction']);
    stack = await openPromptStack({ emulator: { seed: SEED, agentTimeMs: 100 }, env: { REDIS_URL: lossRedis.url } });
  });

  it('after Redis lost the batch and it was recovered from the ledger, still sees a PR link that changed after the send', async () => {
    const batch = await ambiguousBatch('recovered', 2);
    const [changed, unchanged] = batch.jobIds as [string, string];
    stack.emulator.control.setJob('recovered', changed, { prLink: 'https://github.com/acme/docs/pull/501' });
    // Redis loses everything (restarted without persistence).
    await stack.runtime.redis.flushall();
    const request = await requestRecovery(deps(), batch.batchId);
    await waitForRecovery(deps(), request);
    const status = await stack.finish(batch.batchId);
    expect(status.byStatus.ambiguous).toBe(2);

    const result = await resendAmbiguous(deps(), batch.batchId);
    const changedPrompt = status.prompts!.find((p) => p.jobId === changed)!.promptId;
    const unchangedPrompt = status.prompts!.find((p) => p.jobId === unchanged)!.promptId;
    expect(result.likelyReceived.map((p) => p.promptId)).toEqual([changedPrompt]);
    expect(result.likelyReceived[0]!.seen).toContain('→ https://github.com/acme/docs/pull/501');
    expect(result.resent).toEqual([unchangedPrompt]);
    await stack.finish(batch.batchId);
  });
});
