import { spawn, type ChildProcess } from 'node:child_process';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import type { DatasetName } from '../../src/datasets/index.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { enqueueWindows } from '../../src/export/enqueue.js';
import { createLogger } from '../../src/logger.js';
import { openWarehouse, runQuery } from '../../src/warehouse/index.js';
import { testEnv } from '../support/export-stack.js';
import { until } from '../support/wait.js';
import { queueKeyPrefix } from '../../src/queue/queue-names.js';
import { itEmbeddedOnly } from '../support/engine.js';

const children: ChildProcess[] = [];
let emulator: RunningEmulator | undefined;
let redis: Redis | undefined;
let queue: Queue | undefined;

afterEach(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  children.length = 0;
  await queue?.close();
  redis?.disconnect();
  await emulator?.close();
});
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

function startWorker(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['bin/mintpipe.js', 'worker', '--queues', 'export'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  return child;
}

const WINDOW = { dateFrom: '2026-10-01', dateTo: '2026-10-02' };

interface CrashCase {
  dataset: DatasetName;
  project: string;
  /** Pages the window has at the endpoint's largest limit. */
  pages: number;
  env: Record<string, string>;
  /** Rows loaded before the first worker is killed. */
  killAfterRows: number;
}

/**
 * Exports a window, SIGKILLs the worker once `killAfterRows` are loaded, starts a new worker and
 * waits for the window: returns requests before the kill and pages fetched again after it.
 */
async function crashAndResume(c: CrashCase): Promise<{ before: number; refetched: number; sql: (q: string) => Promise<Record<string, unknown>[]> }> {
  emulator = await startEmulator({ port: 0, latencyMs: 60 });
  const env = testEnv({
    MINTLIFY_API_URL: emulator.url,
    MINTPIPE_LOCK_DURATION: '2s',
    MINTPIPE_STALLED_INTERVAL: '1s',
    ...c.env,
  });
  const config = loadConfig(env);
  redis = new Redis(config.redis.url!, { maxRetriesPerRequest: null });
  queue = new Queue('export', { connection: redis, prefix: queueKeyPrefix(config.queuePrefix) });
  const [enqueued] = await enqueueWindows(queue, [{ dataset: c.dataset, projectId: c.project, ...WINDOW, kind: 'manual' }]);

  const first = startWorker(env);
  await until('rows loaded by the first worker', async () => {
    const job = await queue!.getJob(enqueued!.jobId);
    const rows = (job?.progress as { rows?: number } | undefined)?.rows ?? 0;
    return rows >= c.killAfterRows ? rows : undefined;
  });
  first.kill('SIGKILL');
  await new Promise((resolve) => first.once('exit', resolve));
  const before = emulator.counters.analyticsRequests;
  expect(before).toBeLessThan(c.pages);

  const second = startWorker(env);
  const state = await until('the window to finish', async () => {
    const job = await queue!.getJob(enqueued!.jobId);
    const s = await job?.getState();
    return s === 'completed' || s === 'failed' ? s : undefined;
  });
  expect(state).toBe('completed');
  second.kill('SIGTERM');
  await new Promise((resolve) => second.once('exit', resolve));
  const refetched = emulator.counters.analyticsRequests - c.pages;
  process.stderr.write(`crash test ${c.dataset} ${JSON.stringify(c.env)}: ${before} requests before SIGKILL, ${refetched} fetched again after restart\n`);

  const sql = async (q: string) => {
    const warehouse = await openWarehouse({ ...config.clickhouse, dataDir: config.dataDir, logger: createLogger({ level: 'silent' }) });
    try {
      return (await runQuery(warehouse, q)).rows;
    } finally {
      await warehouse.close();
    }
  };
  return { before, refetched, sql };
}

describe('crash recovery', () => {
  itEmbeddedOnly('resumes a window after its worker is killed with SIGKILL and ends exact, with no duplicates visible', async () => {
    const project = 'crash-15000'; // 60 pages
    const { refetched, sql } = await crashAndResume({
      dataset: 'visitors',
      project,
      pages: 60,
      env: { MINTPIPE_PREFETCH_PAGES: '2', MINTPIPE_BATCH_ROWS: '1000', MINTPIPE_ANALYTICS_RATE: 'off' },
      killAfterRows: 3000,
    });
    // Pages fetched but not yet loaded when the worker died are the only ones fetched again. With
    // the budget off that is at most two batches (one being inserted while the next fills: 2 × 4
    // pages), the prefetch window (2) and one request past the window's end (1).
    expect(refetched).toBeLessThanOrEqual(11);
    const truth = emulator!.control.window(project, WINDOW.dateFrom, WINDOW.dateTo);
    const rows = await sql(`SELECT path, human, ai, total FROM visitors WHERE project_id = '${project}' ORDER BY total DESC, path ASC`);
    expect(rows.map((r) => ({ path: r.path, human: Number(r.human), ai: Number(r.ai), total: Number(r.total) }))).toEqual(truth.visitors);
  }, 120_000);

  itEmbeddedOnly('under a budget refetches at most one batch and the request in flight, as docs/exports.md states', async () => {
    const project = 'crash-15000';
    const { refetched, sql } = await crashAndResume({
      dataset: 'visitors',
      project,
      pages: 60,
      // A budget that never runs out still turns prefetch off and loads each batch before fetching on.
      env: { MINTPIPE_BATCH_ROWS: '1000', MINTPIPE_ANALYTICS_RATE: '100000/1h' },
      killAfterRows: 3000,
    });
    // One batch of 1000 rows is 4 pages of 250, plus the request in flight: 5.
    expect(refetched).toBeLessThanOrEqual(5);
    const stats = (await sql(`SELECT count() AS n, uniqExact(path) AS paths FROM visitors WHERE project_id = '${project}'`))[0]!;
    expect([Number(stats.n), Number(stats.paths)]).toEqual([15_000, 15_000]);
  }, 120_000);

  it('resumes a cursor dataset from its checkpointed cursor after SIGKILL and ends exact, each item once', async () => {
    const project = 'crash-6000'; // 6,000 feedback items: 60 pages of 100
    const { refetched, sql } = await crashAndResume({
      dataset: 'feedback',
      project,
      pages: 60,
      env: { MINTPIPE_BATCH_ROWS: '300', MINTPIPE_ANALYTICS_RATE: 'off' },
      killAfterRows: 1500,
    });
    // Cursor pages are fetched one at a time: at most two batches of 3 pages unloaded, plus the one in flight.
    expect(refetched).toBeLessThanOrEqual(7);
    const truth = emulator!.control.truth('feedback', project, WINDOW.dateFrom, WINDOW.dateTo);
    const ids = await sql(`SELECT id FROM feedback WHERE project_id = '${project}' ORDER BY id`);
    expect(ids.map((r) => r.id)).toEqual(truth.items.map((f) => f.id).sort());
  }, 120_000);
});
