import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, dayInTimeZone } from '../../src/export/dates.js';
import { createLogger } from '../../src/logger.js';
import { startDashboard, type Dashboard } from '../../src/ops/dashboard-server.js';
import { createMetrics, type Metrics } from '../../src/ops/metrics.js';
import { QUEUE_NAMES } from '../../src/queue/queues.js';
import { openDashboardStack, seedDashboardData, type DashboardStack, type SeedResult } from '../support/dashboard-stack.js';

/** The metrics' clock, pinned: a run across midnight (UTC) still has one today. */
const NOW = new Date();
const TODAY = dayInTimeZone(NOW, 'UTC');
let stack: DashboardStack;
let seed: SeedResult;
let metrics: Metrics;
let dashboard: Dashboard;

beforeAll(async () => {
  stack = await openDashboardStack();
  seed = await seedDashboardData(stack.warehouse, { today: TODAY });
  const exportQueue = stack.queue(QUEUE_NAMES.export);
  await exportQueue.add('window', { n: 1 });
  await exportQueue.add('window', { n: 2 });
  await exportQueue.add('window', { n: 3 }, { delay: 60_000 });
  // Backfill windows wait with a priority: BullMQ keeps those apart from the waiting ones.
  await exportQueue.add('window', { n: 4 }, { priority: 10 });
  await stack.queue(QUEUE_NAMES.prompts).add('prompt', { n: 1 });
  metrics = createMetrics({ now: () => NOW });
  dashboard = await startDashboard({ runtime: stack.source, host: '127.0.0.1', port: 0, metrics, logger: createLogger({ level: 'silent', pretty: false }) });
});

afterAll(async () => {
  await dashboard?.close();
  await stack?.close();
});

/** The value of one sample line, e.g. `metric{a="b"} 3`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics', () => {
  it('counts pages fetched and rows loaded per project from the export observer', async () => {
    metrics.exportObserver.pageFetched('acme-docs');
    metrics.exportObserver.pageFetched('acme-docs');
    metrics.exportObserver.pageFetched('other');
    metrics.exportObserver.rowsLoaded('acme-docs', 500);
    metrics.exportObserver.rowsLoaded('acme-docs', 250);
    const text = await metrics.render(stack.source);
    expect(sample(text, 'mintpipe_pages_fetched_total{project="acme-docs"}')).toBe(2);
    expect(sample(text, 'mintpipe_pages_fetched_total{project="other"}')).toBe(1);
    expect(sample(text, 'mintpipe_rows_loaded_total{project="acme-docs"}')).toBe(750);
  });

  it('times API attempts by operation and outcome, and counts retries by reason and 429s', async () => {
    metrics.onApiEvent({ op: 'getAnalytics', attempt: 1, status: 200, durationMs: 120, outcome: 'ok' });
    metrics.onApiEvent({ op: 'getAnalytics', attempt: 1, status: 429, durationMs: 40, outcome: 'retry', reason: 'rate_limited' });
    metrics.onApiEvent({ op: 'getAnalytics', attempt: 2, status: 503, durationMs: 900, outcome: 'retry', reason: 'server_error' });
    metrics.onApiEvent({ op: 'sendMessage', attempt: 1, status: 429, durationMs: 30, outcome: 'error', reason: 'rate_limited' });
    const text = await metrics.render(stack.source);
    expect(sample(text, 'mintpipe_api_request_duration_seconds_count{op="getAnalytics",outcome="retry"}')).toBe(2);
    expect(sample(text, 'mintpipe_api_request_duration_seconds_bucket{le="0.25",op="getAnalytics",outcome="ok"}')).toBe(1);
    expect(sample(text, 'mintpipe_api_request_duration_seconds_bucket{le="0.1",op="getAnalytics",outcome="ok"}')).toBe(0);
    expect(sample(text, 'mintpipe_api_retries_total{op="getAnalytics",reason="rate_limited"}')).toBe(1);
    expect(sample(text, 'mintpipe_api_retries_total{op="getAnalytics",reason="server_error"}')).toBe(1);
    expect(sample(text, 'mintpipe_api_rate_limited_total{op="getAnalytics"}')).toBe(1);
    expect(sample(text, 'mintpipe_api_rate_limited_total{op="sendMessage"}')).toBe(1);
  });

  it('counts prompt status changes, sends and polls from the prompt observer, and prompts by current status from the warehouse', async () => {
    metrics.promptObserver.sent();
    metrics.promptObserver.polled();
    metrics.promptObserver.polled();
    metrics.promptObserver.statusChanged('polling');
    metrics.promptObserver.statusChanged('completed');
    const text = await metrics.render(stack.source);
    expect(sample(text, 'mintpipe_prompt_sends_total')).toBe(1);
    expect(sample(text, 'mintpipe_prompt_polls_total')).toBe(2);
    expect(sample(text, 'mintpipe_prompt_status_changes_total{status="completed"}')).toBe(1);
    expect(sample(text, 'mintpipe_prompts{status="completed"}')).toBe(3);
    expect(sample(text, 'mintpipe_prompts{status="ambiguous"}')).toBe(1);
  });

  it('reports queue job counts by state and connected workers', async () => {
    const text = await metrics.render(stack.source);
    expect(sample(text, 'bullmq_job_count{queue="export",state="waiting"}')).toBe(2);
    expect(sample(text, 'bullmq_job_count{queue="export",state="delayed"}')).toBe(1);
    expect(sample(text, 'bullmq_job_count{queue="export",state="prioritized"}')).toBe(1);
    expect(sample(text, 'bullmq_job_count{queue="prompts",state="waiting"}')).toBe(1);
    expect(sample(text, 'bullmq_job_count{queue="prompts",state="failed"}')).toBe(0);
    expect(sample(text, 'bullmq_workers{queue="export"}')).toBe(0);
    expect(sample(text, 'mintpipe_scrape_source_up{source="queues"}')).toBe(1);
  });

  it('reports export lag as the age of the end of the newest complete day', async () => {
    const text = await metrics.render(stack.source);
    expect(seed.days.at(-1)).toBe(addDays(TODAY, -1));
    const lag = sample(text, `mintpipe_export_lag_seconds{project="${seed.projectId}"}`);
    expect(lag).toBe((NOW.getTime() - Date.parse(`${TODAY}T00:00:00Z`)) / 1000);
    expect(sample(text, 'mintpipe_scrape_source_up{source="warehouse"}')).toBe(1);
  });

  it('includes the default process metrics', async () => {
    const text = await metrics.render(stack.source);
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
  });

  it('still answers when the warehouse cannot be read, and says which source is down', async () => {
    const broken = { ...stack.source, warehouse: () => new Promise<never>(() => undefined) };
    const quick = createMetrics({ scrapeTimeoutMs: 300, defaultMetrics: false });
    const text = await quick.render(broken);
    expect(sample(text, 'mintpipe_scrape_source_up{source="warehouse"}')).toBe(0);
    expect(sample(text, 'mintpipe_scrape_source_up{source="queues"}')).toBe(1);
    expect(text).not.toMatch(/^mintpipe_export_lag_seconds\{/m);
  });

  it('serves all of it at /metrics in the Prometheus text format', async () => {
    const response = await stack.fetch(`${dashboard.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    for (const name of ['bullmq_job_count', 'mintpipe_pages_fetched_total', 'mintpipe_rows_loaded_total', 'mintpipe_api_request_duration_seconds', 'mintpipe_api_retries_total', 'mintpipe_api_rate_limited_total', 'mintpipe_prompts', 'mintpipe_export_lag_seconds']) {
      expect(text).toContain(`# TYPE ${name} `);
    }
    // Every metric family is declared once, as Prometheus requires.
    const types = text.split('\n').filter((l) => l.startsWith('# TYPE '));
    expect(new Set(types).size).toBe(types.length);
  });
});
