/**
 * Calling off a backfill removes only windows no worker can have started: the take-back and the
 * state it relies on are one step in Redis, so a window that a worker took (or even finished)
 * between cancel's look and its removal is never reported as removed.
 */
import { randomBytes } from 'node:crypto';
import { Worker, type Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelWindows, takeBackQueuedJob } from '../../src/export/cancel-windows.js';
import { enqueueWindows } from '../../src/export/enqueue.js';
import { openQueue, QUEUE_NAMES, queueKeyPrefix } from '../../src/queue/queues.js';
import { createRedisConnection } from '../../src/queue/redis-connection.js';

let connection: Redis;
let queue: Queue;
let worker: Worker;
const prefix = queueKeyPrefix(`tcw${randomBytes(4).toString('hex')}`);

beforeAll(() => {
  connection = createRedisConnection(process.env.REDIS_URL!, 'cancel-windows-test');
  queue = openQueue(QUEUE_NAMES.export, connection, prefix);
  // A worker that fetches by hand, so the test decides when a job becomes active.
  worker = new Worker(QUEUE_NAMES.export, undefined, { connection: createRedisConnection(process.env.REDIS_URL!, 'cancel-windows-worker'), prefix });
});
afterAll(async () => {
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  connection.disconnect();
});

const window = (day: string, next: string) => ({ dataset: 'visitors' as const, projectId: 'cancel-docs', dateFrom: day, dateTo: next, kind: 'manual' as const });

describe('export cancel', () => {
  it('takes back a waiting or delayed window, and not one a worker took or finished', async () => {
    const enqueued = await enqueueWindows(queue, [window('2026-08-01', '2026-08-02'), window('2026-08-02', '2026-08-03'), window('2026-08-03', '2026-08-04')]);
    // The worker takes two: one it keeps running, one it finishes.
    const active = (await worker.getNextJob('token-1'))!;
    const finished = (await worker.getNextJob('token-2'))!;
    await finished.moveToCompleted('done', 'token-2', false);
    const [waitingId] = enqueued.map((e) => e.jobId).filter((id) => id !== active.id && id !== finished.id);
    const delayedId = (await queue.add('window', window('2026-08-04', '2026-08-05'), { delay: 60_000 })).id;
    expect(await queue.getJobState(finished.id!)).toBe('completed');
    expect(await queue.getJobState(delayedId!)).toBe('delayed');

    expect(await takeBackQueuedJob(queue, active.id!)).toBe(false);
    expect(await takeBackQueuedJob(queue, finished.id!)).toBe(false);
    expect(await takeBackQueuedJob(queue, delayedId!)).toBe(true);
    expect(await takeBackQueuedJob(queue, waitingId!)).toBe(true);
    // Taken back means no worker can start it any more.
    expect(await worker.getNextJob('token-3', { block: false })).toBeUndefined();
    await active.moveToCompleted('done', 'token-1', false);
  });

  it('removes the windows it took back and counts a running one as in flight', async () => {
    const enqueued = await enqueueWindows(queue, [window('2026-09-01', '2026-09-02'), window('2026-09-02', '2026-09-03')]);
    const running = (await worker.getNextJob('token-4'))!;
    const other = enqueued.find((e) => e.jobId !== running.id)!;
    const result = await cancelWindows(queue, { projects: ['cancel-docs'], from: '2026-09-01', to: '2026-09-03' });
    expect(result.removed.map((w) => `${w.dateFrom}..${w.dateTo}`)).toEqual([`${other.window.dateFrom}..${other.window.dateTo}`]);
    expect(result.inFlight).toBe(1);
    expect(await queue.getJob(other.jobId)).toBeUndefined();
    expect(await queue.getJobState(running.id!)).toBe('active');
  });

  it('removes a window delayed before its run fetched a page, and leaves one whose run fetched pages', async () => {
    const checkpoint = (pages: number, offset: number) => ({ runId: `run-${pages}`, restarts: 0, startedAt: new Date().toISOString(), requests: pages, offset, rows: offset, pages });
    const idle = await queue.add('window', { ...window('2026-10-01', '2026-10-02'), runId: 'run-0', checkpoint: checkpoint(0, 0) }, { delay: 60_000 });
    const paged = await queue.add('window', { ...window('2026-10-02', '2026-10-03'), runId: 'run-2', checkpoint: checkpoint(2, 500) }, { delay: 60_000 });
    const result = await cancelWindows(queue, { projects: ['cancel-docs'], from: '2026-10-01', to: '2026-10-03' });
    expect(result.removed.map((w) => w.dateFrom)).toEqual(['2026-10-01']);
    expect(result.waiting.map((w) => w.checkpoint?.runId)).toEqual(['run-0']);
    expect(result.inFlight).toBe(1);
    expect(await queue.getJob(idle.id!)).toBeUndefined();
    expect(await queue.getJobState(paged.id!)).toBe('delayed');
  });

  it('takes back a window left active by a worker that died (its lock gone), and not one a live worker holds', async () => {
    await enqueueWindows(queue, [window('2026-10-05', '2026-10-06'), window('2026-10-06', '2026-10-07')]);
    const orphan = (await worker.getNextJob('token-5'))!;
    const held = (await worker.getNextJob('token-6'))!;
    // The worker holding `orphan` died: its lock expired.
    await connection.del(`${queue.toKey(orphan.id!)}:lock`);
    const result = await cancelWindows(queue, { projects: ['cancel-docs'], from: '2026-10-05', to: '2026-10-07' });
    expect(result.removed.map((w) => w.dateFrom)).toEqual([orphan.data.dateFrom]);
    expect(result.inFlight).toBe(1);
    expect(await queue.getJob(orphan.id!)).toBeUndefined();
    expect(await queue.getJobState(held.id!)).toBe('active');
    await held.moveToCompleted('done', 'token-6', false);
  });

  it('with --dataset, removes only the windows of those datasets and leaves the others queued', async () => {
    const day = { projectId: 'cancel-some', dateFrom: '2026-11-01', dateTo: '2026-11-02', kind: 'manual' as const };
    const [visitors, searches] = await enqueueWindows(queue, [
      { ...day, dataset: 'visitors' },
      { ...day, dataset: 'searches' },
    ]);
    const result = await cancelWindows(queue, { projects: ['cancel-some'], datasets: ['searches'] });
    expect(result.removed.map((w) => w.dataset)).toEqual(['searches']);
    expect(result.inFlight).toBe(0);
    expect(await queue.getJob(searches!.jobId)).toBeUndefined();
    // Still queued (backfill windows wait with a priority).
    expect(['waiting', 'prioritized']).toContain(await queue.getJobState(visitors!.jobId));
    await queue.remove(visitors!.jobId);
  });
});
