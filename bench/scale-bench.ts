/**
 * `npm run bench -- scale`: the same backfill (3 projects × 7 datasets × 5 days) run by 1, 2 and 3
 * `mintpipe worker` processes on one Redis and one ClickHouse server over HTTP (the embedded engine
 * behind test/support/clickhouse-http-server.ts): wall time and rows/s for each. On a small
 * machine this shows contention, not speed-up; it is not run by a bare `npm run bench`.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { DatasetName } from '../src/datasets/index.js';
import { startEmulator } from '../src/emulator/index.js';
import { enqueueWindows } from '../src/export/enqueue.js';
import { openQueue, QUEUE_NAMES, queueKeyPrefix } from '../src/queue/queues.js';
import { startClickHouseHttp } from '../test/support/clickhouse-http.js';
import { testEnv } from '../test/support/export-stack.js';
import { startCli } from '../test/support/run-cli.js';

const PROJECTS = ['bench-a', 'bench-b', 'bench-c'];
const DATASETS: DatasetName[] = ['visitors', 'views', 'feedback', 'feedback-by-page', 'assistant', 'assistant-caller-stats', 'searches'];
const DAYS = ['2026-09-01', '2026-09-02', '2026-09-03', '2026-09-04', '2026-09-05'];
const next = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

async function backfill(redisUrl: string, clickhouseUrl: string, workers: number): Promise<{ ms: number; rows: number; failed: string[] }> {
  const emulator = await startEmulator({ port: 0, latencyMs: 20, pathsFor: () => 1500, itemsFor: (d) => (d === 'feedback-by-page' ? 80 : 1200) });
  const env = testEnv({
    REDIS_URL: redisUrl,
    MINTLIFY_API_URL: emulator.url,
    CLICKHOUSE_URL: clickhouseUrl,
    CLICKHOUSE_DATABASE: `bench_${randomBytes(3).toString('hex')}`,
    MINTPIPE_EXPORT_CONCURRENCY: '2',
  });
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = openQueue(QUEUE_NAMES.export, redis, queueKeyPrefix(env.MINTPIPE_QUEUE_PREFIX!));
  const running = [];
  try {
    // The first worker creates the database before the others start (no race on the migrations).
    for (let i = 0; i < workers; i++) running.push(await startCli(['worker', '--queues', 'export'], env, (p) => p.stderr.includes('mintpipe worker:'), 120_000));
    const windows = PROJECTS.flatMap((projectId) => DAYS.flatMap((day) => DATASETS.map((dataset) => ({ projectId, dataset, dateFrom: day, dateTo: next(day), kind: 'manual' as const }))));
    const startedAt = Date.now();
    const enqueued = await enqueueWindows(queue, windows);
    let rows = 0;
    const failed: string[] = [];
    for (const e of enqueued) {
      for (;;) {
        // The state first, then the job: a job read before it finished has no return value yet.
        const state = await queue.getJobState(e.jobId);
        const job = await queue.getJob(e.jobId);
        if (state === 'completed' || state === 'failed') {
          rows += Number((job?.returnvalue as { rows?: number } | undefined)?.rows ?? 0);
          if (state === 'failed') failed.push(`${e.jobId}: ${job?.failedReason ?? ''}`);
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    return { ms: Date.now() - startedAt, rows, failed };
  } finally {
    for (const w of running) w.child.kill('SIGTERM');
    await Promise.all(running.map((w) => w.exited));
    await queue.close();
    redis.disconnect();
    await emulator.close();
  }
}

export async function scaleBench(redisUrl: string): Promise<string[]> {
  const clickhouse = await startClickHouseHttp({ timeoutMs: 60_000 });
  try {
    const lines = ['scale: 3 projects x 7 datasets x 5 days, one Redis, one ClickHouse over HTTP'];
    for (const workers of [1, 2, 3]) {
      const { ms, rows, failed } = await backfill(redisUrl, clickhouse.url, workers);
      lines.push(`  ${workers} worker(s): ${(ms / 1000).toFixed(1)} s, ${rows} rows, ${Math.round(rows / (ms / 1000))} rows/s, ${failed.length} window(s) failed`);
      for (const reason of failed) lines.push(`    failed ${reason}`);
    }
    return lines;
  } finally {
    await clickhouse.close();
  }
}
