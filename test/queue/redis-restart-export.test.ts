import { afterAll, describe, expect, it } from 'vitest';
import { enqueueWindows } from '../../src/export/enqueue.js';
import { QUEUE_NAMES } from '../../src/queue/queues.js';
import { openExportStack, type ExportStack } from '../support/export-stack.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { until } from '../support/wait.js';

let stack: ExportStack | undefined;
let redis: TestRedis | undefined;
afterAll(async () => {
  await stack?.close();
  await redis?.stop();
});

describe('Redis killed mid-export', () => {
  it('with AOF on: the export carries on once Redis is back and the window ends exact, every row once', async () => {
    redis = await startTestRedis(['--appendonly', 'yes', '--appendfsync', 'always', '--maxmemory-policy', 'noeviction']);
    stack = await openExportStack({
      emulator: { latencyMs: 40 },
      env: { REDIS_URL: redis.url, MINTPIPE_BATCH_ROWS: '1000', MINTPIPE_PREFETCH_PAGES: '2', MINTPIPE_LOCK_DURATION: '5s', MINTPIPE_STALLED_INTERVAL: '2s' },
    });
    const project = 'crash-15000'; // 15,000 paths: 60 pages
    const window = { dateFrom: '2026-10-01', dateTo: '2026-10-02' };
    const queue = stack.runtime.queue(QUEUE_NAMES.export);
    const [enqueued] = await enqueueWindows(queue, [{ dataset: 'visitors', projectId: project, ...window, kind: 'manual' }]);
    const rowsAtKill = await until('rows loaded before the kill', async () => {
      const rows = ((await queue.getJob(enqueued!.jobId))?.progress as { rows?: number } | undefined)?.rows ?? 0;
      return rows >= 3000 ? rows : undefined;
    });
    await redis.kill();
    await new Promise((r) => setTimeout(r, 1000));
    await redis.restart();

    const state = await until('the window to finish', async () => {
      const s = await queue.getJobState(enqueued!.jobId);
      return s === 'completed' || s === 'failed' || s === 'unknown' ? s : undefined;
    });
    expect(state).toBe('completed');
    expect(rowsAtKill).toBeLessThan(15_000);
    const truth = stack.emulator.control.window(project, window.dateFrom, window.dateTo);
    const rows = await stack.rows(`SELECT path, human, ai, total FROM visitors WHERE project_id = '${project}' ORDER BY total DESC, path ASC`);
    expect(rows.map((r) => ({ path: r.path, human: Number(r.human), ai: Number(r.ai), total: Number(r.total) }))).toEqual(truth.visitors);
    // Every stored row of the run once (the view would hide a duplicate of the same path only if
    // equal; the run's table shows it).
    const [stored] = await stack.rows(`SELECT count() AS n, uniqExact(path) AS paths FROM visitor_rows WHERE project_id = '${project}'`);
    expect([Number(stored!.n), Number(stored!.paths)]).toEqual([15_000, 15_000]);
  }, 180_000);
});
