/**
 * The batch job on real Redis, a real BullMQ queue and the embedded warehouse, run by hand (no
 * workers): a batch Redis lost and that is made again gets a runnable job for every lane head, even
 * when a job of the same id was left finished by a run that found its prompt gone.
 */
import { Redis } from 'ioredis';
import { Worker, type Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PromptContext } from '../../src/prompts/prompt-context.js';
import { PROMPT_JOB, promptJobId } from '../../src/prompts/prompt-jobs.js';
import { startBatch } from '../../src/prompts/start-batch.js';
import { QUEUE_NAMES } from '../../src/queue/queues.js';
import { openPromptStack, promptContextOf, promptsOver, type PromptStack } from '../support/prompts-stack.js';
import { until } from '../support/wait.js';

let stack: PromptStack;
let queue: Queue;
let ctx: PromptContext;

beforeAll(async () => {
  stack = await openPromptStack({ workers: false });
  queue = stack.runtime.queue(QUEUE_NAMES.prompts);
  ctx = promptContextOf(stack);
});

afterAll(async () => {
  await stack?.close();
});

/** Deletes every key of this installation, as a Redis restarted without persistence would have. */
async function loseRedis(): Promise<void> {
  const keys = await stack.runtime.redis.keys(`*${stack.config.queuePrefix}*`);
  if (keys.length > 0) await stack.runtime.redis.del(...keys);
}

/**
 * Leaves a completed job under each prompt's job id: what a worker that reconnected after the loss
 * leaves when it runs a job added for a prompt Redis no longer has ("prompt not found").
 */
async function leaveFinishedJobs(promptIds: readonly string[]): Promise<void> {
  await queue.addBulk(promptIds.map((id) => ({ name: PROMPT_JOB, data: { batchId: 'gone', promptId: id, attempt: 0 }, opts: { jobId: promptJobId(id, 0) } })));
  const connection = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
  const worker = new Worker(queue.name, async () => ({ kind: 'skipped', reason: 'prompt not found' }), { connection, prefix: queue.opts.prefix });
  try {
    await until('the leftover jobs completed', async () => ((await queue.getCompletedCount()) >= promptIds.length ? true : undefined));
  } finally {
    await worker.close();
    await connection.quit();
  }
}

async function jobStates(promptIds: readonly string[]): Promise<Record<string, string>> {
  const states: Record<string, string> = {};
  for (const id of promptIds) {
    const job = await queue.getJob(promptJobId(id, 0));
    states[id] = job ? await job.getState() : 'none';
  }
  return states;
}

describe('a batch made again after Redis lost it', () => {
  it.each([
    { how: 'its heads left to their jobs', sendFirst: 0 },
    { how: 'its heads sent by the batch job, under their guard jobs', sendFirst: 256 },
  ])('gets a runnable job for every lane head, though jobs of the same ids were left completed ($how)', async ({ sendFirst }) => {
    const prompts = promptsOver(`lost-${sendFirst}`, 2, 2);
    const { batchId } = await stack.submit(prompts);
    // Started once (its rows reach the ledger), nothing sent yet.
    await startBatch(ctx, { batchId }, { sendFirst: 0 });
    const ids = await stack.store.batchPromptIds(batchId);
    await loseRedis();
    await leaveFinishedJobs(ids);

    const again = await stack.submit(prompts);
    expect(again.batchId).toBe(batchId);
    await startBatch(ctx, { batchId }, { sendFirst });

    // A head runs from its job: waiting, or delayed behind the send this run made. No job of the
    // batch is left finished (which would make adding it again a no-op).
    const records = (await stack.store.readMany(ids)).map((r) => r!);
    const states = await jobStates(ids);
    const openHeads = records.filter((r) => !r.done && r.laned);
    const headStates = await Promise.all(openHeads.map(async (r) => ((await stack.store.laneHead(r.lane)) === r.promptId ? states[r.promptId] : undefined)));
    expect(openHeads.length).toBeGreaterThan(0);
    expect(headStates.filter((s) => s !== undefined && !['waiting', 'delayed'].includes(s))).toEqual([]);
    expect(headStates.filter((s) => s !== undefined).length).toBe(2);
    expect(Object.values(states).filter((s) => s === 'completed' || s === 'failed')).toEqual([]);
    if (sendFirst === 0) expect(headStates.filter((s) => s !== undefined)).toEqual(['waiting', 'waiting']);
  });
});
