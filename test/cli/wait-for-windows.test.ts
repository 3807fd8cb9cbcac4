/**
 * `export --wait` follows windows by reading Redis; when this process's own workers end a job, it
 * looks again at once instead of after its pause. Paced here with a pause far longer than the test
 * may take, so only the wake-up can end it in time.
 */
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForWindows } from '../../src/cli/wait-for-windows.js';
import type { EnqueuedWindow } from '../../src/export/enqueue.js';

const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
const prefix = `{wait-test-${process.pid}}`;
afterAll(() => redis.disconnect());

describe('waitForWindows', () => {
  it('reports windows ended by its own workers as they end, not on its next poll', async () => {
    const queue = new Queue('export', { connection: redis, prefix });
    const worker = new Worker('export', async (job) => ({ rows: Number(job.data.rows), pages: 1, requests: 1 }), { connection: redis.duplicate(), prefix, autorun: false });
    try {
      const enqueued: EnqueuedWindow[] = [];
      for (const [i, rows] of [7, 11].entries()) {
        const job = await queue.add('window', { rows }, { jobId: `w${i}` });
        enqueued.push({ jobId: job.id!, added: true, window: { dataset: 'visitors', projectId: 'p', dateFrom: `2026-10-0${i + 1}`, dateTo: `2026-10-0${i + 2}` } });
      }
      const waiting = waitForWindows(queue, enqueued, {
        pollMs: 3_600_000,
        subscribe: (wake) => {
          worker.on('completed', wake);
          return () => worker.off('completed', wake);
        },
      });
      // Once the first look found both waiting, and the hour-long pause has begun.
      await new Promise((resolve) => setTimeout(resolve, 300));
      void worker.run();
      const results = await waiting;
      expect(results.map((r) => [r.jobId, r.status, r.rows])).toEqual([
        ['w0', 'complete', 7],
        ['w1', 'complete', 11],
      ]);
    } finally {
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  }, 20_000);
});
