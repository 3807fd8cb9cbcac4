import { spawn, type ChildProcess } from 'node:child_process';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { enqueueWindows } from '../../src/export/enqueue.js';
import { createLogger } from '../../src/logger.js';
import { openWarehouse, runQuery } from '../../src/warehouse/index.js';
import { testEnv } from '../support/export-stack.js';
import { until } from '../support/wait.js';

const children: ChildProcess[] = [];
let emulator: RunningEmulator | undefined;
let redis: Redis | undefined;
let queue: Queue | undefined;

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await queue?.close();
  redis?.disconnect();
  await emulator?.close();
});

function startWorker(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['bin/mintpipe.js', 'worker', '--queues', 'export'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  return child;
}

describe('crash recovery', () => {
  it('resumes a window after its worker is killed with SIGKILL and ends exact, with no duplicates visible', async () => {
    emulator = await startEmulator({ port: 0, latencyMs: 60 });
    const env = testEnv({
      MINTLIFY_API_URL: emulator.url,
      MINTPIPE_PREFETCH_PAGES: '2',
      MINTPIPE_BATCH_ROWS: '1000',
      MINTPIPE_LOCK_DURATION: '2s',
      MINTPIPE_STALLED_INTERVAL: '1s',
    });
    const config = loadConfig(env);
    redis = new Redis(config.redis.url!, { maxRetriesPerRequest: null });
    queue = new Queue('export', { connection: redis, prefix: config.queuePrefix });
    const project = 'crash-15000'; // 60 pages
    const [enqueued] = await enqueueWindows(queue, [{ projectId: project, dateFrom: '2026-10-01', dateTo: '2026-10-02', dataset: 'visitors', kind: 'manual' }]);

    const first = startWorker(env);
    await until('rows loaded by the first worker', async () => {
      const job = await queue!.getJob(enqueued!.jobId);
      const rows = (job?.progress as { rows?: number } | undefined)?.rows ?? 0;
      return rows >= 3000 ? rows : undefined;
    });
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    const requestsBeforeCrash = emulator.counters.analyticsRequests;
    expect(requestsBeforeCrash).toBeLessThan(60);

    const second = startWorker(env);
    const state = await until('the window to finish', async () => {
      const job = await queue!.getJob(enqueued!.jobId);
      const s = await job?.getState();
      return s === 'completed' || s === 'failed' ? s : undefined;
    });
    expect(state).toBe('completed');
    second.kill('SIGTERM');
    await new Promise((resolve) => second.once('exit', resolve));

    // Pages fetched but not yet loaded when the worker died are the only ones fetched again. With
    // the budget off that is at most two batches (one being inserted while the next fills: 2 × 4
    // pages), the prefetch window (2) and one request past the window's end (1).
    const refetched = emulator.counters.analyticsRequests - 60;
    process.stderr.write(`crash test: ${requestsBeforeCrash} requests before SIGKILL, ${refetched} page(s) fetched again after restart\n`);
    expect(refetched).toBeGreaterThanOrEqual(0);
    expect(refetched).toBeLessThanOrEqual(11);

    const warehouse = await openWarehouse({ ...config.clickhouse, dataDir: config.dataDir, logger: createLogger({ level: 'silent' }) });
    try {
      const truth = emulator.control.window(project, '2026-10-01', '2026-10-02');
      const stats = (await runQuery(warehouse, `SELECT count() AS n, uniqExact(path) AS paths, sum(total) AS total FROM visitors WHERE project_id = '${project}'`)).rows[0]!;
      expect(Number(stats.n)).toBe(15_000);
      expect(Number(stats.paths)).toBe(15_000);
      expect(Number(stats.total)).toBe(truth.visitors.reduce((s, v) => s + v.total, 0));
      const rows = (await runQuery(warehouse, `SELECT path, human, ai, total FROM visitors WHERE project_id = '${project}' ORDER BY total DESC, path ASC`)).rows;
      expect(rows.map((r) => ({ path: r.path, human: Number(r.human), ai: Number(r.ai), total: Number(r.total) }))).toEqual(truth.visitors);
    } finally {
      await warehouse.close();
    }
  }, 120_000);
});
