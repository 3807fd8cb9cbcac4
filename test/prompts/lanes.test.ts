/**
 * Lanes on real Redis and a real BullMQ queue (no workers of the engine): which lane heads get a
 * queue job, in what order a worker takes them, that a batch job unblocks every failed head
 * however many lanes there are, and that a head sent in the same run is guarded by a delayed job.
 */
import { Redis } from 'ioredis';
import { UnrecoverableError, Worker, type Job, type Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handOver, repairLaneHeads, sendWithGuards, type SendNow } from '../../src/prompts/lanes.js';
import { PROMPT_JOB, promptJobId } from '../../src/prompts/prompt-jobs.js';
import type { PromptRecord } from '../../src/prompts/prompt-record.js';
import { QUEUE_NAMES } from '../../src/queue/queues.js';
import { StepScope } from '../../src/prompts/step-scope.js';
import { openPromptStack, promptContextOf, promptsOver, type PromptStack } from '../support/prompts-stack.js';
import { until } from '../support/wait.js';

let stack: PromptStack;
let queue: Queue;

beforeAll(async () => {
  stack = await openPromptStack({ workers: false });
  queue = stack.runtime.queue(QUEUE_NAMES.prompts);
});

afterAll(async () => {
  await stack?.close();
});

/** A batch of `jobs` lanes with `perJob` prompts each, in their lanes; its records by lane, in order. */
async function lanedBatch(projectId: string, jobs: number, perJob: number): Promise<{ heads: PromptRecord[]; lanes: Map<string, PromptRecord[]> }> {
  const { batchId } = await stack.submit(promptsOver(projectId, jobs, perJob));
  const records = (await stack.store.readMany(await stack.store.batchPromptIds(batchId))).filter((r): r is PromptRecord => r !== undefined);
  records.sort((a, b) => a.position - b.position);
  await stack.store.enterLanes(records);
  const lanes = new Map<string, PromptRecord[]>();
  for (const r of records) lanes.set(r.lane, [...(lanes.get(r.lane) ?? []), r]);
  return { heads: [...lanes.values()].map((l) => l[0]!), lanes };
}

/** Runs a worker of one job at a time on the prompts queue until `count` prompt jobs ran; their ids in the order taken. */
async function takeInOrder(count: number, run: (job: Job) => Promise<void> = async () => {}): Promise<string[]> {
  const taken: string[] = [];
  const connection = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
  const worker = new Worker(
    queue.name,
    async (job) => {
      if (job.name !== PROMPT_JOB) return;
      taken.push(job.id!);
      await run(job);
    },
    { connection, prefix: queue.opts.prefix, concurrency: 1 },
  );
  try {
    await until(`${count} prompt jobs taken`, async () => (taken.length >= count ? true : undefined), 20_000, 20);
  } finally {
    await worker.close();
    await connection.quit();
  }
  return taken;
}

/** Hands `record`'s lane on as the run that ended it would; `send` sends a head in this run. */
async function passLane(record: PromptRecord, send: SendNow = async () => 0): Promise<void> {
  const ctx = promptContextOf(stack);
  await handOver(new StepScope(ctx, record), record, send);
}

/** `record` as a poll that saw its agent job (`jobId`) end completed at `atMs` left it. */
function endedSeeing(record: PromptRecord, jobId: string, atMs: number): PromptRecord {
  return { ...record, jobId, status: 'completed', done: true, lastStatus: 'completed', prLink: null, lastArchivedAt: null, finishedAtMs: atMs };
}

async function stateOf(record: PromptRecord): Promise<string | undefined> {
  return (await queue.getJob(promptJobId(record.promptId, record.attempt)))?.getState();
}

describe('starting lane heads', () => {
  it('adds one job per head, none for the prompts behind it, and adds nothing again for a head that has one', async () => {
    const { heads, lanes } = await lanedBatch('start-heads', 3, 2);
    await repairLaneHeads(stack.store, queue, heads.map((h) => h.promptId));
    await repairLaneHeads(stack.store, queue, heads.map((h) => h.promptId));
    for (const head of heads) expect(await stateOf(head)).toBe('waiting');
    for (const lane of lanes.values()) expect(await stateOf(lane[1]!)).toBeUndefined();
    expect(await queue.getJobCountByTypes('waiting')).toBeGreaterThanOrEqual(3);
    await queue.drain();
  });
});

describe('handing a lane on', () => {
  it('puts the next head of the lane ahead of the jobs already waiting, so its agent job does not sit idle', async () => {
    const { heads, lanes } = await lanedBatch('pass-order', 4, 2);
    await queue.drain();
    await repairLaneHeads(stack.store, queue, heads.slice(0, 3).map((h) => h.promptId));
    const [, , , last] = [...lanes.values()];
    await passLane(last![0]!);
    expect(await stack.store.laneHead(last![0]!.lane)).toBe(last![1]!.promptId);
    const taken = await takeInOrder(4);
    expect(taken[0]).toBe(promptJobId(last![1]!.promptId, 0));
    expect(taken.slice(1)).toEqual(heads.slice(0, 3).map((h) => promptJobId(h.promptId, 0)));
  });

  it('adds nothing when the lane is empty after it, or when its next prompt is already final', async () => {
    const { lanes } = await lanedBatch('pass-nothing', 2, 2);
    await queue.drain();
    const [alone, withDone] = [...lanes.values()];
    await stack.store.leaveLane(alone![0]!);
    const before = await queue.getJobCounts();
    await passLane(alone![1]!);
    expect(await stack.store.laneHead(alone![1]!.lane)).toBeUndefined();
    const skipped = await stack.store.transition(withDone![1]!.promptId, withDone![1]!.batchId, { attempt: 0, from: ['queued'], to: 'skipped', done: true, set: { finishedAt: Date.now() } });
    expect(skipped.ok).toBe(true);
    await passLane(withDone![0]!);
    expect(await stateOf(withDone![1]!)).toBeUndefined();
    expect(await queue.getJobCounts()).toEqual(before);
  });

  it('sends the next head at once when the prompt ahead just saw its agent job end, with what it saw and under a guard job', async () => {
    const { lanes } = await lanedBatch('pass-now', 1, 2);
    const [first, next] = [...lanes.values()][0]!;
    const sent: Array<{ head: PromptRecord; guard: string | undefined; delay: number | undefined }> = [];
    await passLane(endedSeeing(first!, first!.jobId, 1_000_000), async (head) => {
      const job = await queue.getJob(promptJobId(head.promptId, head.attempt));
      sent.push({ head, guard: await job?.getState(), delay: job?.delay });
      return 5000;
    });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.head.promptId).toBe(next!.promptId);
    expect(sent[0]!.head.before).toEqual({ status: 'completed', prLink: null, archivedAt: null });
    expect(sent[0]!.head.checkedAtMs).toBe(1_000_000);
    expect(sent[0]!.head.jobId).toBe(first!.jobId);
    expect([sent[0]!.guard, sent[0]!.delay]).toEqual(['delayed', promptContextOf(stack).timing.sendGuardMs]);
    // After the send, the guard is the head's next step: its first poll.
    expect((await queue.getJob(promptJobId(next!.promptId, 0)))?.delay).toBe(5000);
  });

  it('does not send at once when the prompt ahead saw another agent job: the next head is queued ahead instead', async () => {
    const { lanes } = await lanedBatch('pass-other-job', 1, 2);
    const [first, next] = [...lanes.values()][0]!;
    let sends = 0;
    await passLane(endedSeeing(first!, 'another-job', 1), async () => ++sends);
    expect(sends).toBe(0);
    expect(await stateOf(next!)).toBe('waiting');
  });
});

describe('sending heads under guards', () => {
  it('moves each guard to its send\'s next step, or to now when the send failed', async () => {
    const { heads } = await lanedBatch('guards', 2, 1);
    const [ok, failing] = heads;
    await sendWithGuards(queue, heads, 60_000, async (head) => {
      if (head.promptId === failing!.promptId) throw new Error('send failed');
      return 7000;
    });
    expect((await queue.getJob(promptJobId(ok!.promptId, 0)))?.delay).toBe(7000);
    expect((await queue.getJob(promptJobId(failing!.promptId, 0)))?.delay).toBe(0);
  });
});

describe('repairing lane heads', () => {
  it('retries the failed job of every open head, past the first hundred, and leaves heads fresh in this run alone', async () => {
    const { heads } = await lanedBatch('repair', 150, 1);
    await queue.drain();
    await repairLaneHeads(stack.store, queue, heads.map((h) => h.promptId));
    // Failed for good without the prompt ending, as a job that stalled too often is.
    await takeInOrder(150, async () => {
      throw new UnrecoverableError('stalled too often');
    });
    for (const head of [heads[0]!, heads[149]!]) expect(await stateOf(head)).toBe('failed');
    const fresh = new Set([heads[10]!.promptId]);
    await repairLaneHeads(stack.store, queue, heads.map((h) => h.promptId), fresh);
    const states = await Promise.all(heads.map(stateOf));
    expect(states.filter((s) => s === 'failed')).toEqual(['failed']);
    expect(states[10]).toBe('failed');
    expect(states[149]).toBe('waiting');
  });
});
