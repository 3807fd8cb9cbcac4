import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatBatchReport, parsePromptText, type BatchStatus, type PromptInput, type PromptSummary } from '../../src/prompts/index.js';
import { openPromptStack, promptsOver, type PromptStack } from '../support/prompts-stack.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { runCli } from '../support/run-cli.js';
import { until } from '../support/wait.js';
import { describeEmbeddedOnly, itEmbeddedOnly } from '../support/engine.js';

// A Redis without persistence (a stock redis-server, many managed plans): a crash loses everything.
let redis: TestRedis;
let stack: PromptStack;

beforeAll(async () => {
  redis = await startTestRedis(['--appendonly', 'no']);
  stack = await openPromptStack({
    emulator: { seed: 7, agentTimeMs: 150 },
    // A send still in flight at the loss is settled (ambiguous) once the send guard, the HTTP timeout
    // plus a margin, has passed: a short timeout keeps that wait short, and still far above the
    // emulator's scripted 2 s answers.
    env: { REDIS_URL: redis.url, MINTPIPE_ALLOW_VOLATILE_REDIS: '1', MINTPIPE_HTTP_TIMEOUT: '5s' },
  });
}, 60_000);

afterAll(async () => {
  await stack?.close();
  await redis?.stop();
});

/** POSTs the emulator performed per `projectId/jobId/prompt` (creates as `projectId/create/prompt`). */
function postsPerPrompt(projectId: string): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const m of stack.emulator.messages) if (m.projectId === projectId) add(`${m.projectId}/${m.jobId}/${m.prompt}`);
  for (const c of stack.emulator.creates) if (c.projectId === projectId) add(`${c.projectId}/create/${c.prompt}`);
  return counts;
}

/** Kills Redis (no persistence: it comes back empty) once `sent` POSTs of the project went out. */
async function loseRedisAfter(projectId: string, sent: number): Promise<number> {
  const atKill = await until(`${sent} POSTs before the kill`, async () => {
    const n = [...postsPerPrompt(projectId).values()].reduce((a, b) => a + b, 0);
    return n >= sent ? n : undefined;
  });
  // A marker rather than an empty database proves the loss: workers that reconnect write again at once.
  const marker = `mintpipe-test-marker-${process.pid}`;
  await stack.runtime.redis.set(marker, '1');
  await redis.kill();
  await new Promise((r) => setTimeout(r, 300));
  await redis.restart();
  expect(await stack.runtime.redis.exists(marker)).toBe(0);
  return atKill;
}

/** A prompt no POST went out for: its send is unknown (ambiguous), or it was refused before sending (an archived job). */
function neverPosted(p: PromptSummary): boolean {
  return p.status === 'ambiguous' || (p.status === 'rejected' && p.error?.startsWith('not sent') === true);
}

/** Every prompt ended final (delivered, or another final status such as ambiguous); none is left queued or in flight. */
function expectEveryPromptFinal(status: BatchStatus): void {
  expect(status.prompts!.filter((p) => !p.done).map((p) => `${p.promptId} ${p.status}`)).toEqual([]);
}

describe('Redis restarted empty (no persistence) mid-batch', () => {
  itEmbeddedOnly('the same file submitted again sends no prompt twice, and every prompt ends final or ambiguous', async () => {
    const prompts = promptsOver('lost', 10, 5);
    const first = await stack.submit(prompts);
    await until('12 POSTs', async () => (stack.emulator.messages.filter((m) => m.projectId === 'lost').length >= 12 ? true : undefined));
    // The next sends are performed but answered late: at the kill they are in flight, and only
    // the ledger's `sending` mark (written before each POST) knows they went out.
    stack.emulator.control.script('message', Array.from({ length: 8 }, () => ({ kind: 'delay' as const, ms: 2000, when: 'after' as const })));
    await until('3 sends in flight', async () => (stack.emulator.control.pendingFaults('message') <= 5 ? true : undefined));
    const atKill = await loseRedisAfter('lost', 15);
    expect(atKill).toBeLessThan(prompts.length);

    const again = await until('the resubmission (Redis reconnecting)', () => stack.submit(prompts).catch(() => undefined));
    expect(again.batchId).toBe(first.batchId);
    const status = await stack.finish(again.batchId, 60_000);
    stack.emulator.control.clearScript();
    expectEveryPromptFinal(status);

    const posts = postsPerPrompt('lost');
    expect([...posts.entries()].filter(([, n]) => n > 1)).toEqual([]);
    for (const p of status.prompts!) {
      const n = posts.get(`lost/${p.jobId}/${prompts[p.position]!.prompt}`) ?? 0;
      // Delivered means sent once; a prompt that never reached the server cannot have completed.
      if (['completed', 'failed', 'archived'].includes(p.status)) expect(n, p.promptId).toBe(1);
      else if (n === 0) expect(neverPosted(p), `${p.promptId} ${p.status}`).toBe(true);
    }
    // The prompts sent before the loss were recognized from the ledger, not sent again: every
    // prompt of the file was POSTed at most once in all, and those never sent were sent after.
    expect(posts.size).toBeGreaterThan(atKill);
  }, 120_000);

  it('prompts status says the batch was lost from Redis (exit 1), and prompts recover rebuilds it from the ledger', async () => {
    const prompts = promptsOver('recover', 6, 4);
    const batch = await stack.submit(prompts);
    await loseRedisAfter('recover', 8);

    const lost = await runCli(['prompts', 'status', batch.batchId], stack.env);
    expect(lost.code).toBe(1);
    expect(lost.stderr.trim().split('\n')).toEqual([
      `mintpipe: batch ${batch.batchId}: lost from Redis — was it restarted without persistence? \`mintpipe prompts recover ${batch.batchId}\` rebuilds it from the ledger (or check MINTPIPE_QUEUE_PREFIX)`,
    ]);

    const recover = await runCli(['prompts', 'recover', batch.batchId], stack.env);
    expect([recover.code, recover.stdout.trim()]).toEqual([0, `batch ${batch.batchId}: recovery queued — a worker rebuilds it from the ledger: what was never sent is sent, what was sent is polled to its outcome or ends ambiguous`]);
    await until('the batch rebuilt in Redis', async () => ((await stack.store.batchMeta(batch.batchId)) ? true : undefined));
    const status = await stack.finish(batch.batchId, 60_000);
    expect(status.total).toBe(prompts.length);
    expectEveryPromptFinal(status);
    const posts = postsPerPrompt('recover');
    expect([...posts.entries()].filter(([, n]) => n > 1)).toEqual([]);
    // Every prompt the ledger knew was never sent went out after the recovery.
    const unsent = status.prompts!.filter((p) => (posts.get(`recover/${p.jobId}/${prompts[p.position]!.prompt}`) ?? 0) === 0);
    expect(unsent.filter((p) => !neverPosted(p))).toEqual([]);
  }, 120_000);
});

describe('a prompt file with one line fixed and submitted again', () => {
  it('sends only the fixed lines: every other row is the same ledger entry, already sent', async () => {
    const broken = [
      '{"projectId":"fix","jobId":"job-1","prompt":"first"}',
      '{"projectId":"fix","jobId":"job-2","prompt":"second"}',
      '{"projectId":"fix","jobId":"job-3"}',
      '{"projectId":"fix","chain":"docs","prompt":"start the docs"}',
      '{"projectId":"fix","chain":"docs"}',
    ];
    const fixed = [...broken];
    fixed[2] = '{"projectId":"fix","jobId":"job-3","prompt":"third"}';
    fixed[4] = '{"projectId":"fix","chain":"docs","prompt":"then the quickstart"}';
    const parse = async (lines: string[]): Promise<PromptInput[]> => {
      const file = await parsePromptText('fix.jsonl', lines.join('\n'), { maxPromptBytes: 10_000 }, { allowCreate: true });
      return file.prompts.map(({ projectId, jobId, prompt, chain, line }) => ({ projectId, jobId, prompt, chain, line }));
    };

    const before = await stack.submit(await parse(broken), { allowCreate: true });
    expect(before.total).toBe(3);
    expect((await stack.finish(before.batchId)).prompts!.map((p) => p.status)).toEqual(['completed', 'completed', 'completed']);
    const [created] = stack.emulator.creates.filter((c) => c.projectId === 'fix');

    const after = await stack.submit(await parse(fixed), { allowCreate: true });
    expect(after.batchId).not.toBe(before.batchId);
    const status = await stack.finish(after.batchId);
    expect(status.prompts!.map((p) => p.status)).toEqual(['completed', 'completed', 'completed', 'completed', 'completed']);
    // The rows sent before say by which batch, and the report says they were not sent again.
    expect(status.prompts!.map((p) => p.sentBy)).toEqual([before.batchId, before.batchId, null, before.batchId, null]);
    expect(formatBatchReport(status)).toContain(`sent before (3): the ledger has these rows from an earlier batch, which sent or settled them, so they were not sent again`);

    const posts = postsPerPrompt('fix');
    expect(Object.fromEntries(posts)).toEqual({
      'fix/job-1/first': 1,
      'fix/job-2/second': 1,
      'fix/job-3/third': 1,
      'fix/create/start the docs': 1,
      [`fix/${created!.jobId}/then the quickstart`]: 1,
    });
  }, 60_000);
});

describeEmbeddedOnly('a row taken over by batch after batch', () => {
  it('names the batch that sent it, or settled it unsent, and says so once however many batches took it over since', async () => {
    const archived = [...Array(80).keys()].map((n) => `job-${n + 1}`).find((id) => stack.emulator.control.getJob('handed', id)?.status === 'archived')!;
    const rows = (extra: string[]): PromptInput[] => [
      { projectId: 'handed', jobId: 'job-1', prompt: 'sent once' },
      { projectId: 'handed', jobId: archived, prompt: 'to an archived job' },
      ...extra.map((prompt, i) => ({ projectId: 'handed', jobId: `job-${i + 2}`, prompt })),
    ];
    const first = await stack.submit(rows([]));
    const firstStatus = await stack.finish(first.batchId);
    expect(firstStatus.prompts!.map((p) => p.status)).toEqual(['completed', 'rejected']);
    const rejectedError = firstStatus.prompts![1]!.error!;

    const second = await stack.submit(rows(['new in the second file']));
    await stack.finish(second.batchId);
    const third = await stack.submit(rows(['new in the second file', 'new in the third file']));
    const status = await stack.finish(third.batchId);
    const [sent, unsent, secondsRow, thirdsRow] = status.prompts!;
    // The first batch sent the first row and settled the second unsent; the second batch sent its new row.
    expect([sent!.sentBy, unsent!.sentBy, secondsRow!.sentBy, thirdsRow!.sentBy]).toEqual([first.batchId, first.batchId, second.batchId, null]);
    expect(sent!.sentAt).toBe(firstStatus.prompts![0]!.sentAt);
    expect(unsent!.error).toBe(`${rejectedError} (recorded by batch ${first.batchId}, prompt ${first.promptIds[1]})`);
    const report = formatBatchReport(status);
    expect(report).toContain(`rejected  as batch ${first.batchId} recorded it (never sent)`);
    expect(report).toContain(`completed  sent by batch ${first.batchId} at ${sent!.sentAt}`);
    expect(Object.fromEntries(postsPerPrompt('handed'))).toEqual({
      'handed/job-1/sent once': 1,
      'handed/job-2/new in the second file': 1,
      'handed/job-3/new in the third file': 1,
    });

    // Redis loses everything; the third batch, rebuilt from the ledger, still names the senders.
    const marker = `mintpipe-test-marker-${process.pid}-handed`;
    await stack.runtime.redis.set(marker, '1');
    await redis.kill();
    await new Promise((r) => setTimeout(r, 300));
    await redis.restart();
    expect(await stack.runtime.redis.exists(marker)).toBe(0);
    expect((await runCli(['prompts', 'recover', third.batchId], stack.env)).code).toBe(0);
    await until('the batch rebuilt in Redis', async () => ((await stack.store.batchMeta(third.batchId)) ? true : undefined));
    const recovered = await stack.finish(third.batchId);
    expect(recovered.prompts!.map((p) => p.sentBy)).toEqual([first.batchId, first.batchId, second.batchId, null]);
    expect(recovered.prompts![1]!.error).toBe(unsent!.error);
    expect(postsPerPrompt('handed').size).toBe(3);
  }, 60_000);
});
