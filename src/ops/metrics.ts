/**
 * Prometheus metrics of one mintpipe process: what its exports, prompts and API calls did (counters
 * and histograms fed by observers), plus gauges read at scrape time from the queues (job counts by
 * state, shared by every process on the Redis) and the warehouse (export lag, prompts by status).
 * Default process metrics come along. One registry per `createMetrics()`, so tests stay isolated.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ApiEvent } from '../api/index.js';
import type { ExportObserver } from '../export/export-window.js';
import type { PromptObserver } from '../prompts/prompt-deps.js';
import { ALL_QUEUES } from '../queue/queues.js';
import type { OpsSource } from './ops-source.js';
import { promptStatusCounts } from './prompt-batch-reads.js';
import { exportLagSeconds, newestCompleteDays } from './visitor-reads.js';
import { openReader } from './warehouse-reader.js';
import { withTimeout } from './with-timeout.js';

export interface Metrics {
  readonly registry: Registry;
  /** Pass to the export workers (`startWorkers({ exportObserver })`). */
  readonly exportObserver: Required<ExportObserver>;
  /** Pass to the prompt workers (`startWorkers({ promptObserver })`). */
  readonly promptObserver: Required<PromptObserver>;
  /** Pass as `Runtime.open({ onApiEvent })`. */
  onApiEvent(event: ApiEvent): void;
  /** The exposition text: process counters plus gauges read now from the queues and the warehouse. */
  render(source: OpsSource, options?: RenderOptions): Promise<string>;
  /** Content-Type of `render()`'s text. */
  readonly contentType: string;
}

export interface RenderOptions {
  /**
   * Read the gauges every process would report alike (queue job counts and workers, export lag,
   * prompts by status). Off for a worker's own endpoint when a dashboard reports them. @default true
   */
  sharedGauges?: boolean;
}

export interface MetricsOptions {
  /** Longest wait for Redis or the warehouse during a scrape; a part that misses it is reported as down. @default 5000 */
  scrapeTimeoutMs?: number;
  /** Collect Node's default process metrics (CPU, memory, event loop). @default true */
  defaultMetrics?: boolean;
}

const JOB_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed'] as const;

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const scrapeTimeoutMs = options.scrapeTimeoutMs ?? 5000;
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const pagesFetched = new Counter({
    name: 'mintpipe_pages_fetched_total',
    help: 'Visitor pages fetched from the analytics API',
    labelNames: ['project'],
    registers,
  });
  const rowsLoaded = new Counter({
    name: 'mintpipe_rows_loaded_total',
    help: 'Visitor rows loaded into the warehouse',
    labelNames: ['project'],
    registers,
  });
  const apiDuration = new Histogram({
    name: 'mintpipe_api_request_duration_seconds',
    help: 'Mintlify API attempts by operation and outcome (ok, retry, error)',
    labelNames: ['op', 'outcome'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers,
  });
  const retries = new Counter({
    name: 'mintpipe_api_retries_total',
    help: 'Mintlify API attempts that failed and were retried, by reason',
    labelNames: ['op', 'reason'],
    registers,
  });
  const rateLimited = new Counter({
    name: 'mintpipe_api_rate_limited_total',
    help: 'Mintlify API answers with status 429',
    labelNames: ['op'],
    registers,
  });
  const promptTransitions = new Counter({
    name: 'mintpipe_prompt_status_changes_total',
    help: 'Prompts that entered a status, in this process',
    labelNames: ['status'],
    registers,
  });
  const promptSends = new Counter({ name: 'mintpipe_prompt_sends_total', help: 'Prompt messages sent', registers });
  const promptPolls = new Counter({ name: 'mintpipe_prompt_polls_total', help: 'Agent job polls', registers });

  const jobCount = new Gauge({
    name: 'bullmq_job_count',
    help: 'Number of jobs in the queue by state',
    labelNames: ['queue', 'state'],
    registers,
  });
  const workerCount = new Gauge({
    name: 'bullmq_workers',
    help: 'Workers connected to the queue (all processes)',
    labelNames: ['queue'],
    registers,
  });
  const exportLag = new Gauge({
    name: 'mintpipe_export_lag_seconds',
    help: 'Seconds since the end of the newest day with a complete export, per project',
    labelNames: ['project'],
    registers,
  });
  const prompts = new Gauge({
    name: 'mintpipe_prompts',
    help: 'Prompts by current status (prompt_outcomes)',
    labelNames: ['status'],
    registers,
  });
  const scrapeUp = new Gauge({
    name: 'mintpipe_scrape_source_up',
    help: '1 when the last scrape could read the source (queues, warehouse), 0 otherwise',
    labelNames: ['source'],
    registers,
  });

  async function readQueues(source: OpsSource): Promise<void> {
    const results = await Promise.all(
      ALL_QUEUES.map(async (name) => {
        const queue = source.queue(name);
        const [counts, workers] = await Promise.all([queue.getJobCounts(...JOB_STATES), queue.getWorkersCount()]);
        return { name, counts, workers };
      }),
    );
    jobCount.reset();
    workerCount.reset();
    for (const { name, counts, workers } of results) {
      for (const state of JOB_STATES) jobCount.set({ queue: name, state }, counts[state] ?? 0);
      workerCount.set({ queue: name }, workers);
    }
  }

  async function readWarehouse(source: OpsSource): Promise<void> {
    // Its own warehouse, or through the process holding the embedded engine (`mintpipe dashboard` beside `start`).
    const wh = await openReader(source, source.config);
    const [newest, statuses] = await Promise.all([newestCompleteDays(wh), promptStatusCounts(wh)]);
    const now = new Date();
    exportLag.reset();
    for (const [project, end] of newest) exportLag.set({ project }, exportLagSeconds(end, now));
    prompts.reset();
    for (const [status, n] of statuses) prompts.set({ status }, n);
  }

  async function scrape(name: string, part: Promise<void>): Promise<void> {
    try {
      await withTimeout(part, scrapeTimeoutMs, name);
      scrapeUp.set({ source: name }, 1);
    } catch {
      // The gauge says it; a scrape must still answer with everything else.
      scrapeUp.set({ source: name }, 0);
    }
  }

  return {
    registry,
    contentType: registry.contentType,
    exportObserver: {
      pageFetched: (projectId) => pagesFetched.inc({ project: projectId }),
      rowsLoaded: (projectId, rows) => rowsLoaded.inc({ project: projectId }, rows),
    },
    promptObserver: {
      statusChanged: (status) => promptTransitions.inc({ status }),
      polled: () => promptPolls.inc(),
      sent: () => promptSends.inc(),
    },
    onApiEvent(event) {
      apiDuration.observe({ op: event.op, outcome: event.outcome }, event.durationMs / 1000);
      if (event.outcome === 'retry') retries.inc({ op: event.op, reason: event.reason ?? 'unknown' });
      if (event.status === 429) rateLimited.inc({ op: event.op });
    },
    async render(source, renderOptions = {}) {
      if (renderOptions.sharedGauges ?? true) {
        await Promise.all([scrape('queues', readQueues(source)), scrape('warehouse', readWarehouse(source))]);
      }
      return registry.metrics();
    },
  };
}
