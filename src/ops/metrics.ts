/**
 * Prometheus metrics of one mintpipe process: what its exports, prompts and API calls did (counters
 * and histograms fed by observers), plus gauges read at scrape time from the queues (job counts by
 * state, shared by every process on the Redis) and the warehouse (export lag, prompts by status).
 * Default process metrics come along. One registry per `createMetrics()`, so tests stay isolated.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { ApiEvent } from '../api/index.js';
import type { ExportObserver } from '../export/export-window.js';
import type { PromptObserver } from '../prompts/prompt-deps.js';
import { apiCounters, exportCounters, promptCounters } from './metrics-counters.js';
import { sharedGauges } from './metrics-gauges.js';
import type { OpsSource } from './ops-source.js';

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
  /** The clock the export lag is measured to. @default the system clock */
  now?: () => Date;
}

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  // Exposed in this order: the process's counters, then the gauges read at scrape time.
  const exportObserver = exportCounters([registry]);
  const onApiEvent = apiCounters([registry]);
  const promptObserver = promptCounters([registry]);
  const readSharedGauges = sharedGauges([registry], options.scrapeTimeoutMs ?? 5000, options.now);
  return {
    registry,
    contentType: registry.contentType,
    exportObserver,
    promptObserver,
    onApiEvent,
    async render(source, renderOptions = {}) {
      if (renderOptions.sharedGauges ?? true) await readSharedGauges(source);
      return registry.metrics();
    },
  };
}
