/**
 * Adding window jobs to a real BullMQ queue (real Redis, a random prefix): each run gets a fresh job
 * id, while the window key keeps a window from being in flight twice. The race where the window's
 * job ends between our add and our look-up is made to happen at that moment by a queue that
 * finishes (or removes) the owning job right after each add. What needs no queue (run ids,
 * priorities) is in enqueue.unit.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { Queue, Worker, type Job, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { enqueueWindows, windowPriority, type ExportJobData } from '../../src/export/enqueue.js';
import { windowKey, type ExportWindow, type WindowKind } from '../../src/export/windows.js';
import { JOB_ATTEMPTS } from '../../src/queue/crash-budget.js';
import { QUEUE_NAMES, queueKeyPrefix } from '../../src/queue/queues.js';
import { createRedisConnection } from '../../src/queue/redis-connection.js';
import { rejection } from '../support/wait.js';

/** A real queue that runs `afterAdd` once each add has reached Redis, and counts the adds. */
class QueueWithAHook extends Queue {
  afterAdd: ((queue: QueueWithAHook) => Promise<void>) | undefined;
  adds = 0;

  override async add(name: string, data: unknown, opts?: JobsOptions): Promise<Job> {
    const job = await super.add(name, data, opts);
    this.adds += 1;
    await this.afterAdd?.(this);
    return job;
  }
}

let connection: Redis;
let workerConnection: Redis;
let queue: QueueWithAHook;
let worker: Worker;
let token = 0;

beforeAll(() => {
  const prefix = queueKeyPrefix(`tenq${randomBytes(4).toString('hex')}`);
  connection = createRedisConnection(process.env.REDIS_URL!, 'enqueue-test');
  workerConnection = createRedisConnection(process.env.REDIS_URL!, 'enqueue-test-worker');
  queue = new QueueWithAHook(QUEUE_NAMES.export, { connection, prefix });
  // A worker that takes jobs by hand, so each test decides when a window is running or finished.
  worker = new Worker(QUEUE_NAMES.export, undefined, { connection: workerConnection, prefix });
});
beforeEach(async () => {
  queue.afterAdd = undefined;
  queue.adds = 0;
  await queue.obliterate({ force: true });
});
afterAll(async () => {
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  connection.disconnect();
  workerConnection.disconnect();
});

const window = (dateFrom: string, dateTo: string, kind: WindowKind = 'manual'): ExportWindow & { kind: WindowKind } => ({
  dataset: 'views',
  projectId: 'enqueue docs',
  dateFrom,
  dateTo,
  kind,
});

/** Takes the next job as a worker would (it becomes active), under a token of its own. */
async function take(): Promise<{ job: Job; token: string }> {
  const mine = `token-${(token += 1)}`;
  const job = await worker.getNextJob(mine, { block: false });
  if (!job) throw new Error('no job to take');
  return { job, token: mine };
}

async function finishNext(): Promise<void> {
  const { job, token: mine } = await take();
  await job.moveToCompleted('done', mine, false);
}

describe('enqueueWindows on a real queue', () => {
  it('adds a new window as a job named window, with its run id, its data, its priority and its retry and retention options', async () => {
    const w = window('2026-07-01', '2026-07-02', 'reexport');
    const [enqueued] = await enqueueWindows(queue, [w]);
    expect(enqueued).toEqual({ window: w, jobId: expect.stringMatching(/^views_enqueue_docs_2026-07-01_2026-07-02_[0-9a-z]+$/), added: true });
    const job = (await queue.getJob(enqueued!.jobId))!;
    expect(job.name).toBe('window');
    expect(job.data).toEqual({ ...w, runId: enqueued!.jobId } satisfies ExportJobData);
    expect(job.opts).toMatchObject({
      priority: windowPriority('reexport', 'views'),
      attempts: JOB_ATTEMPTS,
      backoff: { type: 'exponential', delay: 2000 },
      removeOnComplete: { age: 14 * 86_400, count: 10_000 },
      removeOnFail: { age: 30 * 86_400 },
    });
    expect(await queue.getDeduplicationJobId(windowKey(w))).toBe(enqueued!.jobId);
  });

  it('gives a window its kind first, then its dataset place in the configured order, as priority', async () => {
    const [nightly, manual] = await enqueueWindows(queue, [window('2026-07-01', '2026-07-02', 'nightly'), window('2026-07-02', '2026-07-03')], {
      datasetOrder: ['searches', 'views'],
    });
    expect((await queue.getJob(nightly!.jobId))!.opts.priority).toBe(2);
    expect((await queue.getJob(manual!.jobId))!.opts.priority).toBe(201);
  });

  it('returns the job that owns a window already waiting or running, and adds nothing', async () => {
    const w = window('2026-07-01', '2026-07-02');
    const [first] = await enqueueWindows(queue, [w]);
    expect(await enqueueWindows(queue, [w])).toEqual([{ window: w, jobId: first!.jobId, added: false }]);
    const { job } = await take();
    expect(job.id).toBe(first!.jobId);
    expect(await enqueueWindows(queue, [w])).toEqual([{ window: w, jobId: first!.jobId, added: false }]);
    expect(await queue.getJobCounts('waiting', 'prioritized', 'active')).toEqual({ waiting: 0, prioritized: 0, active: 1 });
  });

  it('adds a finished window again under a fresh run id', async () => {
    const w = window('2026-07-01', '2026-07-02');
    const [first] = await enqueueWindows(queue, [w]);
    await finishNext();
    const [again] = await enqueueWindows(queue, [w]);
    expect(again).toEqual({ window: w, jobId: expect.any(String), added: true });
    expect(again!.jobId).not.toBe(first!.jobId);
    expect(await queue.getJobState(again!.jobId)).toBe('prioritized');
    expect(await queue.getJobState(first!.jobId)).toBe('completed');
  });

  it('adds two different windows, each under its own run id, in the order given', async () => {
    const windows = [window('2026-07-01', '2026-07-02'), { ...window('2026-07-01', '2026-07-02'), dataset: 'searches' as const }];
    const enqueued = await enqueueWindows(queue, windows);
    expect(enqueued.map((e) => [e.window, e.added])).toEqual([
      [windows[0], true],
      [windows[1], true],
    ]);
    expect(new Set(enqueued.map((e) => e.jobId)).size).toBe(2);
    for (const e of enqueued) expect((await queue.getJob(e.jobId))!.data.dataset).toBe(e.window.dataset);
  });

  it('adds the window again when the job that owned it finished between the add and the look-up', async () => {
    const w = window('2026-07-01', '2026-07-02');
    const [owner] = await enqueueWindows(queue, [w]);
    queue.adds = 0;
    queue.afterAdd = async (q) => {
      q.afterAdd = undefined;
      await finishNext();
    };
    const [again] = await enqueueWindows(queue, [w]);
    expect(queue.adds).toBe(2);
    expect(again).toEqual({ window: w, jobId: expect.any(String), added: true });
    expect(again!.jobId).not.toBe(owner!.jobId);
    expect(await queue.getDeduplicationJobId(windowKey(w))).toBe(again!.jobId);
  });

  it('gives up after two tries, naming the window, when its job vanishes after every add', async () => {
    const w = window('2026-07-01', '2026-07-02');
    queue.afterAdd = async (q) => {
      const owner = await q.getDeduplicationJobId(windowKey(w));
      if (owner) await q.remove(owner);
    };
    const error = await rejection(enqueueWindows(queue, [w]));
    expect(error).toEqual(new Error(`could not enqueue window ${windowKey(w)}`));
    expect(queue.adds).toBe(2);
  });
});
