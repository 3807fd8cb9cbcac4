import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelBatch, resendAmbiguous, type PromptInput } from '../../src/prompts/index.js';
import { QUEUE_NAMES } from '../../src/queue/queues.js';
import { openPromptStack, type PromptStack } from '../support/prompts-stack.js';
import { until } from '../support/wait.js';

let stack: PromptStack;

beforeAll(async () => {
  stack = await openPromptStack({ emulator: { seed: 42, agentTimeMs: 60 } });
});

afterAll(async () => {
  await stack?.close();
});

/** A chain that creates its job, then follows up `steps - 1` times. */
function chain(projectId: string, name: string, steps: number): PromptInput[] {
  return Array.from({ length: steps }, (_, i) => ({ projectId, chain: name, prompt: `${projectId}/${name} step ${i + 1}` }));
}

function interleave(...chains: PromptInput[][]): PromptInput[] {
  const rows: PromptInput[] = [];
  for (let i = 0; i < Math.max(...chains.map((c) => c.length)); i++) for (const c of chains) if (c[i]) rows.push(c[i]!);
  return rows;
}

/** Every POST the emulator performed for the project, as `create:prompt` or `jobId:prompt`, in arrival order. */
function posts(projectId: string): string[] {
  const all = [
    ...stack.emulator.creates.filter((c) => c.projectId === projectId).map((c) => ({ at: c.receivedAt, key: `create:${c.prompt}` })),
    ...stack.emulator.messages.filter((m) => m.projectId === projectId).map((m) => ({ at: m.receivedAt, key: `${m.jobId}:${m.prompt}` })),
  ];
  return all.sort((a, b) => a.at - b.at).map((p) => p.key);
}

const api = () => ({ redis: stack.runtime.redis, queue: stack.runtime.queue(QUEUE_NAMES.prompts), prefix: stack.config.queuePrefix });

describe('a batch that creates its agent jobs', () => {
  it('creates each chain job once and sends its follow-ups to that job in input order, each after the previous step ended', async () => {
    const rows = interleave(chain('make', 'docs', 3), chain('make', 'sdk', 3), chain('make', 'faq', 2));
    const batch = await stack.submit(rows, { allowCreate: true });
    const status = await stack.finish(batch.batchId);
    expect(status.done).toBe(rows.length);

    for (const name of ['docs', 'sdk', 'faq']) {
      const steps = status.prompts!.filter((p) => p.chain === name);
      const created = stack.emulator.creates.filter((c) => c.prompt === `make/${name} step 1`);
      expect(created).toHaveLength(1);
      const jobId = created[0]!.jobId;
      expect(steps[0]).toMatchObject({ kind: 'create', jobId });
      // What was sent to the job: the chain's follow-ups, in order, while the chain kept completing.
      const sent = stack.emulator.messages.filter((m) => m.jobId === jobId && m.projectId === 'make');
      const completedRun = steps.findIndex((s) => s.status !== 'completed');
      const reached = completedRun === -1 ? steps.length : completedRun + 1;
      expect(sent.map((m) => m.prompt)).toEqual(steps.slice(1, reached).map((s) => rows[s.position]!.prompt));
      expect(sent.every((m) => m.statusBefore !== 'active')).toBe(true);
      // Each follow-up went out only once the step before it had its outcome.
      for (const [k, m] of sent.entries()) expect(m.receivedAt).toBeGreaterThanOrEqual(Date.parse(steps[k]!.finishedAt!));
      for (const [i, step] of steps.entries()) {
        if (i > 0) expect(step).toMatchObject({ kind: 'message', jobId: i < reached ? jobId : expect.any(String) });
        if (i >= reached) expect(step).toMatchObject({ status: 'skipped', error: expect.stringMatching(/stopped at line|stopped at #/) });
      }
      expect(status.chains!.find((c) => c.chain === name)).toMatchObject({ jobId, steps: steps.length });
    }
    expect(new Set(posts('make')).size).toBe(posts('make').length);

    const rows2 = await stack.outcomes(batch.batchId);
    const byId = new Map(status.prompts!.map((p) => [p.promptId, p]));
    for (const row of rows2) {
      const p = byId.get(String(row.prompt_id))!;
      expect([row.kind, row.chain, row.job_id, row.status]).toEqual([p.kind, p.chain, p.jobId, p.status]);
    }
  });

  it('stops a chain at a step that does not complete: the rest end skipped and are never sent', async () => {
    stack.emulator.control.script('message', [{ kind: 'status', status: 400 }]);
    const batch = await stack.submit(chain('stop', 'c', 4), { allowCreate: true });
    const status = await stack.finish(batch.batchId);
    // Not left for the next case when the chain stopped before any message.
    stack.emulator.control.clearScript();
    const [create, refused, ...rest] = status.prompts!;
    // A new job's first run fails one time in ten (the emulator draws it): then the chain stops at its create.
    expect(['completed', 'failed']).toContain(create!.status);
    const stop = create!.status === 'completed' ? { at: '#2', ended: 'rejected', skipped: rest } : { at: '#1', ended: 'failed', skipped: [refused!, ...rest] };
    if (create!.status === 'completed') expect(refused).toMatchObject({ status: 'rejected' });
    expect(stop.skipped).toHaveLength(create!.status === 'completed' ? 2 : 3);
    for (const step of stop.skipped) expect(step).toMatchObject({ status: 'skipped', error: `not sent: chain "c" stopped at ${stop.at}, which ended ${stop.ended}` });
    expect(posts('stop').filter((p) => p.startsWith('create:'))).toEqual(['create:stop/c step 1']);
    expect(posts('stop').filter((p) => !p.startsWith('create:'))).toEqual([]);
    expect(status.chains).toMatchObject([{ chain: 'c', state: 'stopped' }]);
  });

  it('waits out a 429 on a create and creates the job once', async () => {
    stack.emulator.control.script('create', [{ kind: 'rateLimit', retryAfterSeconds: 1 }]);
    const batch = await stack.submit(chain('limited', 'c', 2), { allowCreate: true });
    const status = await stack.finish(batch.batchId);
    expect(stack.emulator.counters.routes.create.statuses[429]).toBeGreaterThanOrEqual(1);
    expect(posts('limited')).toEqual(['create:limited/c step 1', ...(status.prompts![0]!.status === 'completed' ? [`${status.prompts![0]!.jobId}:limited/c step 2`] : [])]);
    expect(status.prompts![0]!.kind).toBe('create');
    expect(['completed', 'failed']).toContain(status.prompts![0]!.status);
  });
});

describe('a create whose answer is lost', () => {
  it('ends ambiguous and holds its chain; resending it creates once more, after which the chain goes on', async () => {
    // The emulator creates the job, then the answer never arrives (a 502 after processing).
    stack.emulator.control.script('create', [{ kind: 'status', status: 502, when: 'after' }]);
    const batch = await stack.submit(chain('lost', 'c', 3), { allowCreate: true });
    const held = await stack.finish(batch.batchId);
    const [create, ...followUps] = held.prompts!;
    expect(create).toMatchObject({ status: 'ambiguous', done: true, jobId: '', kind: 'create' });
    expect(create!.error).toMatch(/the create may have been performed .*502.*not resent/);
    expect(create!.sentAt).not.toBeNull();
    expect(held.held).toBe(2);
    for (const step of followUps) expect(step).toMatchObject({ status: 'queued', held: true, heldBehind: create!.promptId });
    expect(held.chains).toMatchObject([{ chain: 'c', state: 'held', jobId: null }]);
    // One create reached the server; its job exists, but nothing is sent to a guess.
    expect(posts('lost')).toEqual(['create:lost/c step 1']);

    const { resent, released } = await resendAmbiguous(api(), batch.batchId, { promptId: create!.promptId });
    expect(resent).toEqual([create!.promptId]);
    expect(released).toEqual(followUps.map((p) => p.promptId));
    const done = await stack.finish(batch.batchId);
    const newJob = done.prompts![0]!.jobId;
    expect(stack.emulator.creates.filter((c) => c.projectId === 'lost').map((c) => c.jobId)).toEqual([expect.any(String), newJob]);
    const orphan = stack.emulator.creates.find((c) => c.projectId === 'lost')!.jobId;
    expect(newJob).not.toBe(orphan);
    expect(done.held).toBe(0);
    const sent = posts('lost').filter((p) => !p.startsWith('create:'));
    expect(sent.every((p) => p.startsWith(`${newJob}:`))).toBe(true);
    if (done.prompts![0]!.status === 'completed') expect(sent).toEqual([`${newJob}:lost/c step 2`, ...(done.prompts![1]!.status === 'completed' ? [`${newJob}:lost/c step 3`] : [])]);
  });

  it('cancels what was never sent, held steps included, and the batch ends', async () => {
    stack.emulator.control.script('create', [{ kind: 'reset', when: 'after' }]);
    const batch = await stack.submit(chain('cancel', 'c', 3), { allowCreate: true });
    const held = await stack.finish(batch.batchId);
    expect(held.held).toBe(2);
    const result = await cancelBatch(api(), batch.batchId);
    expect(result.cancelled).toHaveLength(2);
    const status = await stack.finish(batch.batchId);
    expect(status.done).toBe(3);
    expect(status.prompts!.map((p) => p.status)).toEqual(['ambiguous', 'cancelled', 'cancelled']);
    expect(posts('cancel')).toEqual(['create:cancel/c step 1']);
    const rows = await stack.outcomes(batch.batchId);
    expect(rows.map((r) => r.status).sort()).toEqual(['ambiguous', 'cancelled', 'cancelled']);
  });

  it('cancels prompts waiting for a busy job without sending them, and frees the job for the next batch', async () => {
    stack.emulator.control.setJob('busy', 'job-1', { status: 'active' });
    // The job stays busy until the cancel, however long the batch takes to start (a run lasts ~60 ms).
    const busy = setInterval(() => stack.emulator.control.setJob('busy', 'job-1', { status: 'active' }), 20);
    const jobReadsBefore = stack.emulator.counters.jobRequests;
    const batch = await stack.submit([
      { projectId: 'busy', jobId: 'job-1', prompt: 'wait for me' },
      { projectId: 'busy', jobId: 'job-1', prompt: 'and me' },
    ]);
    // The lane's head has found the job busy and waits (a delayed job) when the cancel comes.
    await until('the busy job to be checked', async () => (stack.emulator.counters.jobRequests > jobReadsBefore ? true : undefined));
    const result = await cancelBatch(api(), batch.batchId).finally(() => clearInterval(busy));
    expect(result.cancelled).toHaveLength(2);
    expect((await stack.finish(batch.batchId)).prompts!.map((p) => p.status)).toEqual(['cancelled', 'cancelled']);
    stack.emulator.control.setJob('busy', 'job-1', { status: 'completed' });
    const next = await stack.submit([{ projectId: 'busy', jobId: 'job-1', prompt: 'after the cancel' }]);
    expect((await stack.finish(next.batchId)).prompts![0]!.status).toMatch(/completed|failed/);
    expect(stack.emulator.messages.filter((m) => m.projectId === 'busy').map((m) => m.prompt)).toEqual(['after the cancel']);
  });
});
