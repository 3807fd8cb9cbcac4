/**
 * The dashboard on a running stack, wired the way `mintpipe start` wires it: a Runtime with an API
 * key, in-process export workers against the emulator, metrics fed by the pipeline. After a real
 * export, /metrics shows what the pipeline did, and the key appears in no response and no log line.
 */
import { PassThrough } from 'node:stream';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/cli/runtime.js';
import { addDays, dayInTimeZone } from '../../src/export/dates.js';
import { enqueueWindows } from '../../src/export/enqueue.js';
import { planWindows } from '../../src/export/windows.js';
import { createLogger } from '../../src/logger.js';
import { startDashboard, type Dashboard } from '../../src/ops/dashboard-server.js';
import { createMetrics, type Metrics } from '../../src/ops/metrics.js';
import { QUEUE_NAMES } from '../../src/queue/queues.js';
import { TEST_API_KEY, UNPACED_ENV } from '../support/test-env.js';
import { openTestStack, type TestStack } from '../support/test-stack.js';

const PROJECT = 'live-docs';
const PATHS_PER_DAY = 600; // 3 pages of at most 250 rows
const DAYS = 3;
/** The dashboard's and the metrics' clock, pinned: a run across midnight (UTC) still has one today. */
const NOW = new Date();
const TODAY = dayInTimeZone(NOW, 'UTC');

let stack: TestStack | undefined;
let runtime: Runtime;
let metrics: Metrics;
let dashboard: Dashboard;
let jobIds: string[];
const logLines: string[] = [];

async function waitForJobs(queue: Queue, ids: string[]): Promise<string[]> {
  const states: string[] = [];
  for (const id of ids) {
    for (;;) {
      const state = (await (await queue.getJob(id))?.getState()) ?? 'missing';
      if (['completed', 'failed', 'missing'].includes(state)) {
        states.push(state);
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return states;
}

beforeAll(async () => {
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => logLines.push(chunk.toString()));
  const logger = createLogger({ level: 'debug', pretty: false, destination: logStream });
  metrics = createMetrics({ now: () => NOW });
  stack = await openTestStack({
    emulator: { apiKey: TEST_API_KEY, pathsFor: () => PATHS_PER_DAY },
    env: { ...UNPACED_ENV, LOG_LEVEL: 'debug', MINTPIPE_PREFETCH_PAGES: '1' },
    logger,
    observers: { onApiEvent: (event) => metrics.onApiEvent(event), exportObserver: metrics.exportObserver, promptObserver: metrics.promptObserver },
    workers: [QUEUE_NAMES.export],
  });
  runtime = stack.runtime;
  const queue = runtime.queue(QUEUE_NAMES.export);
  const enqueued = await enqueueWindows(queue, planWindows(PROJECT, addDays(TODAY, -DAYS), TODAY, 'day').map((w) => ({ ...w, dataset: 'visitors' as const, kind: 'manual' as const })));
  jobIds = enqueued.map((e) => e.jobId);
  expect(await waitForJobs(queue, jobIds)).toEqual(Array(DAYS).fill('completed'));
  dashboard = await startDashboard({ runtime, host: '127.0.0.1', port: 0, metrics, now: () => NOW, logger });
});

afterAll(async () => {
  await dashboard?.close();
  await stack?.close();
});

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('dashboard on a running stack', () => {
  it('shows at /metrics what the export pipeline did, and the queue it did it from', async () => {
    const text = await (await stack!.fetch(`${dashboard.url}/metrics`)).text();
    expect(sample(text, `mintpipe_pages_fetched_total{project="${PROJECT}"}`)).toBe(DAYS * 3);
    expect(sample(text, `mintpipe_rows_loaded_total{project="${PROJECT}"}`)).toBe(DAYS * PATHS_PER_DAY);
    expect(sample(text, 'mintpipe_api_request_duration_seconds_count{op="getAnalytics",outcome="ok"}')).toBe(DAYS * 3);
    expect(sample(text, 'bullmq_job_count{queue="export",state="completed"}')).toBe(DAYS);
    expect(sample(text, 'bullmq_workers{queue="export"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, `mintpipe_export_lag_seconds{project="${PROJECT}"}`)).toBeLessThan(86_400);
  });

  it('shows the exported days on the API the page reads', async () => {
    const body = (await (await stack!.fetch(`${dashboard.url}/api/daily?project=${PROJECT}&days=30`)).json()) as { days: Array<{ counts: unknown }> };
    expect(body.days.filter((d) => d.counts)).toHaveLength(DAYS);
  });

  it('never shows the API key: not on any page, JSON answer, error, metric or Bull Board view, and neither it nor the dashboard token is in any log line', async () => {
    const firstDay = addDays(TODAY, -1);
    const paths = [
      '/',
      '/assets/dashboard.js',
      '/assets/charts.js',
      '/assets/format.js',
      '/assets/dashboard.css',
      '/api/projects',
      `/api/daily?project=${PROJECT}&days=90`,
      `/api/windows?project=${PROJECT}`,
      `/api/top-pages?project=${PROJECT}&from=${firstDay}&to=${addDays(firstDay, 1)}`,
      '/api/export-runs',
      '/api/prompt-batches',
      '/api/queues',
      '/api/daily',
      `/api/top-pages?project=${PROJECT}&from=${TEST_API_KEY}&to=x`,
      `/api/nothing-here?key=${TEST_API_KEY}`,
      '/metrics',
      '/healthz',
      '/queues',
      '/queues/queue/export',
      '/queues/api/queues',
      '/queues/api/queues?activeQueue=export&status=completed&page=1&jobsPerPage=50',
      `/queues/api/queues/export/${jobIds[0]}`,
      '/queues/api/queues/export/workers',
      '/queues/api/redis/stats',
    ];
    const seen: string[] = [];
    for (const path of paths) {
      const response = await stack!.fetch(`${dashboard.url}${path}`);
      const text = await response.text();
      seen.push(`${path} ${response.status}`);
      expect(text, path).not.toContain(TEST_API_KEY);
      expect(text, path).not.toMatch(/mint_[A-Za-z0-9_-]{8,}/);
      expect(JSON.stringify([...response.headers]), path).not.toContain(TEST_API_KEY);
    }
    // The crawl reached real content, not a wall of errors.
    expect(seen.filter((s) => s.endsWith(' 200')).length).toBeGreaterThanOrEqual(paths.length - 3);
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('')).not.toContain(TEST_API_KEY);
    // Nor the dashboard's generated token, which every request above carried (the logger redacts it).
    expect(logLines.join('')).toContain('dashboard_listening');
    expect(logLines.join('')).not.toContain(stack!.token());
  });
});
