/**
 * Nightly run of every dataset: 3 projects × 7 days × the seven default datasets at 25 ms per
 * request, through the real queue into the embedded warehouse. Prints, side by side in one run,
 * the requests spent against the fewest possible (one per page at each endpoint's largest limit,
 * from the emulator's ground truth), wall time against the sequential floor (fewest requests ×
 * latency), and 429s — with the budget off (speed) and under a budget the upstream also enforces
 * (every request counts; none refused).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config/index.js';
import { DEFAULT_DATASETS } from '../config/datasets.js';
import { Runtime } from '../src/cli/runtime.js';
import { getDataset, type DatasetName } from '../src/datasets/index.js';
import { analyticsTruth, startEmulator } from '../src/emulator/index.js';
import { addDays } from '../src/export/dates.js';
import { enqueueWindows } from '../src/export/enqueue.js';
import { createLogger } from '../src/logger.js';
import { QUEUE_NAMES } from '../src/queue/queues.js';

const PROJECTS = ['nightly-a', 'nightly-b', 'nightly-c'];
const FIRST_DAY = '2026-10-01';
const DAYS = 7;

/** Fewest requests for a window: one per page at the largest limit, one per single call. */
function fewestRequests(dataset: DatasetName, projectId: string, dateFrom: string, dateTo: string): number {
  const pagination = getDataset(dataset).pagination;
  if (pagination.kind === 'single') return 1;
  if (pagination.kind === 'fanout') return 0;
  const truth = analyticsTruth({}, dataset, projectId, dateFrom, dateTo) as { items: unknown[] };
  return Math.max(1, Math.ceil(truth.items.length / pagination.limit));
}

async function nightly(redisUrl: string, latencyMs: number, rate: string | null): Promise<{ ms: number; requests: number; refused: number; rows: number }> {
  const upstreamRate = rate === null ? null : { limit: Number(rate.split('/')[0]), windowMs: 10_000 };
  const emulator = await startEmulator({ port: 0, latencyMs, analyticsRate: upstreamRate });
  const env = {
    REDIS_URL: redisUrl,
    MINTLIFY_API_URL: emulator.url,
    MINTLIFY_API_KEY: 'mint_bench',
    MINTPIPE_ANALYTICS_RATE: rate ?? 'off',
    MINTPIPE_DATA_DIR: mkdtempSync(join(tmpdir(), 'mintpipe-bench-datasets-')),
    MINTPIPE_QUEUE_PREFIX: `benchds${Date.now()}`,
    MINTPIPE_EXPORT_CONCURRENCY: process.env.MINTPIPE_EXPORT_CONCURRENCY ?? '4',
    LOG_LEVEL: 'warn',
  };
  const config = loadConfig(env);
  const runtime = await Runtime.open({ config, logger: createLogger({ level: 'warn', pretty: false }) });
  try {
    await runtime.startWorkers([QUEUE_NAMES.export]);
    const queue = runtime.queue(QUEUE_NAMES.export);
    const windows = PROJECTS.flatMap((projectId) =>
      DEFAULT_DATASETS.flatMap((dataset) =>
        Array.from({ length: DAYS }, (_, i) => ({ dataset, projectId, dateFrom: addDays(FIRST_DAY, i), dateTo: addDays(FIRST_DAY, i + 1), kind: 'nightly' as const })),
      ),
    );
    const started = performance.now();
    const enqueued = await enqueueWindows(queue, windows, { datasetOrder: DEFAULT_DATASETS });
    let rows = 0;
    for (const e of enqueued) {
      for (;;) {
        const state = await queue.getJobState(e.jobId);
        if (state === 'completed') {
          rows += ((await queue.getJob(e.jobId))?.returnvalue as { rows: number }).rows;
          break;
        }
        if (state === 'failed') throw new Error(`bench window failed: ${(await queue.getJob(e.jobId))?.failedReason}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    return { ms: performance.now() - started, requests: emulator.counters.analyticsRequests, refused: emulator.counters.analytics429, rows };
  } finally {
    await runtime.close();
    await emulator.close();
  }
}

export async function datasetsBench(redisUrl: string, latencyMs = 25): Promise<string[]> {
  let fewest = 0;
  for (const projectId of PROJECTS) {
    for (const dataset of DEFAULT_DATASETS) {
      for (let i = 0; i < DAYS; i++) fewest += fewestRequests(dataset, projectId, addDays(FIRST_DAY, i), addDays(FIRST_DAY, i + 1));
    }
  }
  const floorMs = fewest * latencyMs;
  const windows = PROJECTS.length * DEFAULT_DATASETS.length * DAYS;
  const free = await nightly(redisUrl, latencyMs, null);
  const paced = await nightly(redisUrl, latencyMs, '600/10s');
  const line = (label: string, r: typeof free) =>
    `  ${label.padEnd(28)} ${(r.ms / 1000).toFixed(2)} s   ${r.requests} requests (${r.requests - fewest >= 0 ? '+' : ''}${r.requests - fewest} vs fewest)   ${r.refused} × 429   ${r.rows.toLocaleString('en')} rows   → ${(floorMs / r.ms).toFixed(1)}× the sequential floor`;
  return [
    `datasets: nightly run of ${DEFAULT_DATASETS.length} datasets × ${PROJECTS.length} projects × ${DAYS} days = ${windows} windows, ${latencyMs} ms per request`,
    `  fewest requests possible      ${fewest}   sequential floor ${(floorMs / 1000).toFixed(2)} s (fewest × latency)`,
    line('mintpipe, budget off', free),
    line('mintpipe, budget 600/10s', paced),
  ];
}
