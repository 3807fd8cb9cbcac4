/**
 * Many workers, one warehouse: three `mintpipe worker` processes (the real CLI) share one Redis (or
 * Redis Cluster: the scenario runs on each, from its own test file) and one ClickHouse server reached over HTTP (test/support/clickhouse-http-server.ts, real
 * SQL). One is SIGKILLed mid-window; every view still matches the emulator's truth, the upstream
 * saw the fewest pages plus at most one batch per kill and no 429 of mintpipe's making, and a
 * prompt batch spread over the three POSTs each prompt at most once.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { getDataset, type DatasetName } from '../../src/datasets/index.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { enqueueWindows } from '../../src/export/enqueue.js';
import { submitBatch, waitForBatch } from '../../src/prompts/index.js';
import { openQueue, QUEUE_NAMES, queueKeyPrefix } from '../../src/queue/queues.js';
import { createRedisConnection } from '../../src/queue/redis-connection.js';
import { openWarehouse, runQuery, type Warehouse } from '../../src/warehouse/index.js';
import { startClickHouseHttp, type RunningClickHouseHttp } from './clickhouse-http.js';
import { testEnv } from './export-stack.js';
import { promptsOver } from './prompts-stack.js';
import { startCli, type RunningCli } from './run-cli.js';
import { until } from './wait.js';
import { expectWindowExact } from './window-truth.js';

const PROJECTS = ['scale-a', 'scale-b', 'scale-c'];
/** Every dataset a window is exported for without assistant threads (those are per-thread calls). */
const DATASETS: DatasetName[] = ['visitors', 'views', 'feedback', 'feedback-by-page', 'assistant', 'assistant-caller-stats', 'searches'];
/**
 * 63 windows: the kill comes after 20 are done, with every worker in one, so the two left take the
 * killed worker's window and 40-odd more.
 */
const DAYS = ['2026-10-01', '2026-10-02', '2026-10-03'];
const next = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
/** Rows per page request and per insert: one batch is one page of the offset endpoints. */
const BATCH_ROWS = 250;
/** The largest limit of each endpoint (as the export requests them). */
const PAGE_LIMIT = (dataset: DatasetName): number => {
  const pagination = getDataset(dataset).pagination;
  return pagination.kind === 'offset' || pagination.kind === 'cursor' ? pagination.limit : 0;
};

/** Defines the scenario's tests, on the Redis (or cluster) that `redisUrl` gives once its hooks run. */
export function defineScaleOutTests(where: string, redisUrl: () => Promise<string>): void {
  let clickhouse: RunningClickHouseHttp;
  let emulator: RunningEmulator;
  let env: Record<string, string>;
  let redis: Redis;
  let warehouse: Warehouse;
  const workers: RunningCli[] = [];

  beforeAll(async () => {
    // The server, the upstream and the Redis start side by side (each is kept as soon as it is up,
    // so afterAll stops it even when another fails to start).
    let url = '';
    const clickhouseUp = startClickHouseHttp().then((started) => (clickhouse = started));
    const redisUp = redisUrl().then((started) => (url = started));
    // Small windows: a few pages each, so 105 windows stay quick while each still spans pages.
    const emulatorUp = startEmulator({
      port: 0,
      latencyMs: 15,
      agentTimeMs: 100,
      pathsFor: () => 400,
      itemsFor: (dataset) => (dataset === 'feedback-by-page' ? 40 : 300),
      // The upstream's limit, and mintpipe's shared budget set to it: a 429 would be self-inflicted.
      analyticsRate: { limit: 60, windowMs: 1000 },
    }).then((started) => (emulator = started));
    await Promise.all([clickhouseUp, redisUp, emulatorUp]);
    env = testEnv({
      REDIS_URL: url,
      MINTLIFY_API_URL: emulator.url,
      CLICKHOUSE_URL: clickhouse.url,
      CLICKHOUSE_DATABASE: `scale_${randomBytes(3).toString('hex')}`,
      MINTPIPE_ANALYTICS_RATE: '60/1s',
      MINTPIPE_BATCH_ROWS: String(BATCH_ROWS),
      MINTPIPE_EXPORT_CONCURRENCY: '1',
      MINTPIPE_LOCK_DURATION: '2s',
      MINTPIPE_STALLED_INTERVAL: '1s',
      MINTPIPE_POLL_INITIAL: '20ms',
      MINTPIPE_POLL_SETTLE: '200ms',
      MINTPIPE_POLL_MAX: '200ms',
      MINTPIPE_PROMPT_CONCURRENCY: '16',
      MINTPIPE_PROMPT_DEADLINE: '30s',
    });
    const config = loadConfig(env);
    redis = createRedisConnection(config.redis.url!, 'scale-out-test');
    // Created once here, so the three workers do not race to apply the migrations.
    warehouse = await openWarehouse({ ...config.clickhouse, dataDir: config.dataDir });
    const started = await Promise.all(
      [1, 2, 3].map(() => startCli(['worker', '--queues', 'export,prompts'], env, (printed) => printed.stderr.includes('mintpipe worker:'), 90_000)),
    );
    workers.push(...started);
  }, 120_000);

  afterAll(async () => {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
    await warehouse?.close();
    redis?.disconnect();
    await emulator?.close();
    await clickhouse?.close();
  });

  const pages = (items: number, limit: number) => (limit === 0 ? 1 : Math.max(1, Math.ceil(items / limit)));

  describe(`three workers on ${where} and one ClickHouse server`, () => {
    it(`export 3 projects × 7 datasets × ${DAYS.length} days, one worker SIGKILLed mid-window: every view exact, the fewest pages plus one batch, no 429`, async () => {
      const prefix = queueKeyPrefix(loadConfig(env).queuePrefix);
      const queue = openQueue(QUEUE_NAMES.export, redis, prefix);
      try {
        const windows = PROJECTS.flatMap((projectId) => DAYS.flatMap((day) => DATASETS.map((dataset) => ({ projectId, dataset, dateFrom: day, dateTo: next(day), kind: 'manual' as const }))));
        const enqueued = await enqueueWindows(queue, windows);
        expect(enqueued).toHaveLength(PROJECTS.length * DATASETS.length * DAYS.length);

        // Mid-window: each worker runs one window at a time, so with three active every worker is in one.
        await until('20 windows done and every worker in a window', async () => {
          const counts = await queue.getJobCounts('completed', 'active');
          return (counts.completed ?? 0) >= 20 && (counts.active ?? 0) >= 3 ? true : undefined;
        }, 90_000, 20);
        const victim = workers[0]!;
        victim.child.kill('SIGKILL');
        await victim.exited;

        const states = await until('every window finished', async () => {
          const all = await Promise.all(enqueued.map(async (e) => (await queue.getJob(e.jobId))?.getState()));
          return all.every((s) => s === 'completed' || s === 'failed') ? all : undefined;
        }, 90_000, 200);
        expect(states.filter((s) => s !== 'completed')).toEqual([]);

        for (const project of PROJECTS) {
          for (const day of DAYS) {
            await expectWindowExact({ emulator, project, datasets: DATASETS, rows: async (sql) => (await runQuery(warehouse, sql)).rows }, { dateFrom: day, dateTo: next(day) });
          }
        }
        const fewest = windows.reduce((n, w) => n + pages(emulator.control.truth(w.dataset, w.projectId, w.dateFrom, w.dateTo).items.length, PAGE_LIMIT(w.dataset)), 0);
        const requests = emulator.counters.analyticsRequests;
        // One kill: at most the killed window's batch in flight is fetched again (a batch of 250 rows
        // is up to 3 pages of 100 at the cursor endpoints), and nothing else.
        expect(requests).toBeGreaterThanOrEqual(fewest);
        expect(requests - fewest).toBeLessThanOrEqual(Math.ceil(BATCH_ROWS / 100));
        expect(emulator.counters.analytics429).toBe(0);
      } finally {
        await queue.close();
      }
    }, 150_000);

    it('runs a 200-prompt batch across the workers that remain: each prompt POSTed at most once', async () => {
      const config = loadConfig(env);
      const queue = openQueue(QUEUE_NAMES.prompts, redis, queueKeyPrefix(config.queuePrefix));
      try {
        const prompts = promptsOver('scale-prompts', 50, 4);
        const batch = await submitBatch({ redis, queue, prefix: config.queuePrefix }, prompts);
        const status = await waitForBatch(redis, config.queuePrefix, batch.batchId, { intervalMs: 100, signal: AbortSignal.timeout(60_000) });
        expect(status.done).toBe(200);
        const sent = emulator.messages.filter((m) => m.projectId === 'scale-prompts').map((m) => `${m.jobId}/${m.prompt}`);
        expect(sent.filter((key, i) => sent.indexOf(key) !== i)).toEqual([]);
        expect(sent.length + status.byStatus.rejected).toBe(200);
      } finally {
        await queue.close();
      }
    }, 90_000);
  });
}
