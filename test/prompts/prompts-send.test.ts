import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSeededArchived } from '../../src/emulator/index.js';
import { promptsOver, openPromptStack, type PromptStack } from '../support/prompts-stack.js';
import { PromptKeys } from '../../src/prompts/prompt-keys.js';
import { runCli } from '../support/run-cli.js';

const SEED = 42;
let stack: PromptStack;

beforeAll(async () => {
  stack = await openPromptStack({ emulator: { seed: SEED, agentTimeMs: 100 } });
});

afterAll(async () => {
  await stack?.close();
});

/** Seeded jobs of `project` that are not archived, `count` of them from `job-<from>` on. */
function liveJobs(project: string, count: number, from = 1): string[] {
  const jobs: string[] = [];
  for (let n = from; jobs.length < count; n++) if (!isSeededArchived(SEED, project, `job-${n}`)) jobs.push(`job-${n}`);
  return jobs;
}

function archivedJob(project: string): string {
  for (let n = 1; ; n++) if (isSeededArchived(SEED, project, `job-${n}`)) return `job-${n}`;
}

function received(prompt: string): number {
  return stack.emulator.messages.filter((m) => m.prompt === prompt).length;
}

describe('sending a batch', () => {
  it('sends each prompt once, one at a time per agent job in input order, and records every outcome', async () => {
    const project = 'order';
    const jobs = liveJobs(project, 3);
    const prompts = [1, 2, 3].flatMap((round) => jobs.map((jobId) => ({ projectId: project, jobId, prompt: `${jobId} step ${round}` })));
    const batch = await stack.submit(prompts);
    const status = await stack.finish(batch.batchId);

    expect(status.done).toBe(9);
    expect(status.byStatus.completed + status.byStatus.failed).toBe(9);
    for (const p of prompts) expect(received(p.prompt)).toBe(1);
    for (const jobId of jobs) {
      const messages = stack.messagesByJob().get(`${project}/${jobId}`)!;
      expect(messages.map((m) => m.prompt)).toEqual([1, 2, 3].map((round) => `${jobId} step ${round}`));
      expect(messages.every((m) => m.statusBefore !== 'active')).toBe(true);
      // Each prompt went out only after the previous prompt to the same job had its outcome.
      const finished = status.prompts!.filter((p) => p.jobId === jobId).map((p) => Date.parse(p.finishedAt!));
      expect(messages[1]!.receivedAt).toBeGreaterThanOrEqual(finished[0]!);
      expect(messages[2]!.receivedAt).toBeGreaterThanOrEqual(finished[1]!);
    }

    const outcomes = await stack.outcomes(batch.batchId);
    expect(outcomes).toHaveLength(9);
    const byId = new Map(status.prompts!.map((p) => [p.promptId, p]));
    for (const row of outcomes) {
      expect(row.status).toBe(byId.get(String(row.prompt_id))!.status);
      expect(Number(row.polls)).toBeGreaterThanOrEqual(1);
      expect(row.sent_at).not.toBeNull();
      expect(row.finished_at).not.toBeNull();
    }
    const events = await stack.rows(`SELECT prompt_id, groupArray(status) AS statuses FROM (SELECT prompt_id, status FROM mintpipe.prompt_events WHERE batch_id = '${batch.batchId}' ORDER BY version) GROUP BY prompt_id`);
    for (const row of events) expect((row.statuses as string[]).slice(0, 3)).toEqual(['queued', 'sending', 'polling']);
  });

  it('enqueues nothing new when the same prompts are submitted again, unless forced', async () => {
    const prompts = [{ projectId: 'again', jobId: liveJobs('again', 1)[0]!, prompt: 'only once' }];
    const first = await stack.submit(prompts);
    await stack.finish(first.batchId);
    const second = await stack.submit(prompts);
    expect(second).toMatchObject({ batchId: first.batchId, added: 0, existing: 1 });
    await new Promise((r) => setTimeout(r, 300));
    expect(received('only once')).toBe(1);

    const forced = await stack.submit(prompts, { force: true });
    expect(forced.batchId).not.toBe(first.batchId);
    expect(forced.added).toBe(1);
    await stack.finish(forced.batchId);
    expect(received('only once')).toBe(2);
  });

  it('rejects prompts to unknown and archived agent jobs without sending them', async () => {
    const project = 'reject';
    const archived = archivedJob(project);
    const batch = await stack.submit([
      { projectId: project, jobId: 'no-such-job', prompt: 'to nobody' },
      { projectId: project, jobId: archived, prompt: 'to the archive' },
    ]);
    const status = await stack.finish(batch.batchId);
    expect(status.prompts!.map((p) => p.status)).toEqual(['rejected', 'rejected']);
    expect(status.prompts![0]!.error).toMatch(/not found/);
    expect(status.prompts![1]!.error).toMatch(/archived/);
    expect(received('to nobody') + received('to the archive')).toBe(0);
  });

  it("ends a prompt rejected with the server's message when the POST answers 400 or 404", async () => {
    const [jobA, jobB] = liveJobs('bad-request', 2);
    stack.emulator.control.script('message', [{ kind: 'status', status: 400 }]);
    const first = await stack.submit([{ projectId: 'bad-request', jobId: jobA!, prompt: 'refused 400' }]);
    const [p400] = (await stack.finish(first.batchId)).prompts!;
    stack.emulator.control.script('message', [{ kind: 'status', status: 404 }]);
    const second = await stack.submit([{ projectId: 'bad-request', jobId: jobB!, prompt: 'refused 404' }]);
    const [p404] = (await stack.finish(second.batchId)).prompts!;
    expect(p400).toMatchObject({ status: 'rejected', sentAt: null });
    expect(p400!.error).toMatch(/400.*Bad Request/);
    expect(p404!.status).toBe('rejected');
    expect(p404!.error).toMatch(/404/);
  });

  it('does not resend after a 5xx that came after processing: the prompt ends ambiguous with what was observed, and the lane goes on', async () => {
    const jobId = liveJobs('ambiguous', 1)[0]!;
    stack.emulator.control.script('message', [{ kind: 'status', status: 502, when: 'after' }]);
    const batch = await stack.submit([
      { projectId: 'ambiguous', jobId, prompt: 'maybe delivered' },
      { projectId: 'ambiguous', jobId, prompt: 'after the ambiguous one' },
    ]);
    const [first, second] = (await stack.finish(batch.batchId)).prompts!;
    expect(first!.status).toBe('ambiguous');
    expect(first!.error).toMatch(/may have been received.*502/);
    expect(first!.error).toMatch(/observed: the agent job ran and ended (completed|failed)/);
    expect(first!.polls).toBeGreaterThanOrEqual(1);
    expect(received('maybe delivered')).toBe(1);
    expect(['completed', 'failed']).toContain(second!.status);
    const messages = stack.messagesByJob().get(`ambiguous/${jobId}`)!;
    expect(messages.map((m) => m.statusBefore)).not.toContain('active');
  });

  it('ends a send whose connection was reset ambiguous, with no sign of processing when the server never got it (and not credited with the pull request the job had before)', async () => {
    const jobId = liveJobs('reset', 40).find((id) => stack.emulator.control.getJob('reset', id)?.prLink)!;
    const earlierPr = stack.emulator.control.getJob('reset', jobId)!.prLink;
    expect(earlierPr).toMatch(/^https:/);
    stack.emulator.control.script('message', [{ kind: 'reset', when: 'before' }]);
    const batch = await stack.submit([{ projectId: 'reset', jobId, prompt: 'lost in a reset' }]);
    const [p] = (await stack.finish(batch.batchId)).prompts!;
    expect(p!.status).toBe('ambiguous');
    expect(p!.error).toMatch(/no sign the message was processed/);
    expect(p!.prLink).toBeNull();
    expect(received('lost in a reset')).toBe(0);
  });

  it('resends ambiguous prompts only on request, as a new attempt', async () => {
    const { resendAmbiguous } = await import('../../src/prompts/index.js');
    const jobId = liveJobs('resend', 1)[0]!;
    stack.emulator.control.script('message', [{ kind: 'status', status: 503, when: 'before' }]);
    const batch = await stack.submit([{ projectId: 'resend', jobId, prompt: 'try me again' }]);
    expect((await stack.finish(batch.batchId)).byStatus.ambiguous).toBe(1);
    expect(received('try me again')).toBe(0);
    // As if the ledger had shown this row sent by an earlier batch: once resent, the send is this batch's own.
    await stack.runtime.redis.hset(new PromptKeys(stack.config.queuePrefix).prompt(batch.promptIds[0]!), 'sentBy', 'fedcba9876543210');
    expect((await stack.store.read(batch.promptIds[0]!))!.sentBy).toBe('fedcba9876543210');

    const { resent, likelyReceived } = await resendAmbiguous({ redis: stack.runtime.redis, queue: stack.runtime.queue('prompts'), prefix: stack.config.queuePrefix }, batch.batchId);
    expect(resent).toHaveLength(1);
    // Refused before processing, its job never ran it: nothing suggests it was received.
    expect(likelyReceived).toEqual([]);
    expect((await stack.store.read(batch.promptIds[0]!))!.sentBy).toBeUndefined();
    const [p] = (await stack.finish(batch.batchId)).prompts!;
    expect(['completed', 'failed']).toContain(p!.status);
    expect(received('try me again')).toBe(1);
    const [row] = await stack.outcomes(batch.batchId);
    expect(row!.status).toBe(p!.status);
  });

  it('says which ambiguous prompts were most likely received (their job was seen running after the first send) and resends those only with --include-received', async () => {
    const jobIds = liveJobs('resent-ran', 2);
    stack.emulator.control.script('message', [{ kind: 'status', status: 503, when: 'before' }, { kind: 'status', status: 503, when: 'before' }]);
    const batch = await stack.submit(jobIds.map((jobId) => ({ projectId: 'resent-ran', jobId, prompt: `maybe received by ${jobId}` })));
    expect((await stack.finish(batch.batchId)).byStatus.ambiguous).toBe(2);
    // As its polls would have left it had the job run the first send.
    const keys = new PromptKeys(stack.config.queuePrefix);
    await stack.runtime.redis.hset(keys.prompt(batch.promptIds[1]!), 'observedActive', '1');
    const resend = await runCli(['prompts', 'resend', batch.batchId, '--ambiguous'], stack.env);
    expect(resend.code, resend.stderr).toBe(0);
    expect(resend.stderr).toBe(
      `warning: 1 ambiguous prompt(s) most likely received (their agent job changed after the send), not resent (--include-received sends them anyway): ${batch.promptIds[1]} (its agent job was seen active)\n`,
    );
    await stack.finish(batch.batchId);
    const anyway = await runCli(['prompts', 'resend', batch.batchId, '--ambiguous', '--include-received'], stack.env);
    expect(anyway.code, anyway.stderr).toBe(0);
    expect(anyway.stderr).toBe(
      `warning: 1 ambiguous prompt(s) most likely received (their agent job changed after the send), resent: each may run twice: ${batch.promptIds[1]} (its agent job was seen active)\n`,
    );
    await stack.finish(batch.batchId);
  });

  it('waits Retry-After after a 429 on the send, then sends once', async () => {
    const jobId = liveJobs('limited', 1)[0]!;
    stack.emulator.control.script('message', [{ kind: 'rateLimit', retryAfterSeconds: 1 }]);
    const startedAt = Date.now();
    const batch = await stack.submit([{ projectId: 'limited', jobId, prompt: 'after the 429' }]);
    const [p] = (await stack.finish(batch.batchId)).prompts!;
    expect(['completed', 'failed']).toContain(p!.status);
    expect(received('after the 429')).toBe(1);
    const message = stack.emulator.messages.find((m) => m.prompt === 'after the 429')!;
    expect(message.receivedAt - startedAt).toBeGreaterThanOrEqual(950);
  });

  it('never messages an agent job while it is active: the prompt waits for the run to end', async () => {
    const jobId = liveJobs('busy', 1)[0]!;
    stack.emulator.control.setJob('busy', jobId, { status: 'active' });
    const busySince = Date.now();
    const batch = await stack.submit([{ projectId: 'busy', jobId, prompt: 'when you are free' }]);
    const [p] = (await stack.finish(batch.batchId)).prompts!;
    expect(['completed', 'failed']).toContain(p!.status);
    const [message] = stack.messagesByJob().get(`busy/${jobId}`)!;
    expect(message!.statusBefore).not.toBe('active');
    expect(message!.receivedAt - busySince).toBeGreaterThanOrEqual(100);
  });

  it('sends prompts to different agent jobs in parallel', async () => {
    const prompts = promptsOver('parallel', 20, 1);
    const batch = await stack.submit(prompts);
    await stack.finish(batch.batchId);
    // Runs on the emulator's clock: one after another, no two would overlap.
    const runs = stack.emulator.messages.filter((m) => m.projectId === 'parallel').map((m) => [m.receivedAt, m.receivedAt + m.runMs] as const);
    const overlapping = Math.max(...runs.map(([start]) => runs.filter(([s, end]) => s <= start && start < end).length));
    expect(overlapping).toBeGreaterThanOrEqual(3);
  });
});
