/**
 * Gauges read at scrape time, alike in every process: job counts and workers by queue (shared by
 * every process on the Redis), export lag and prompts by status (the warehouse). A part that does
 * not answer in time is reported down by `mintpipe_scrape_source_up`, and the scrape goes on.
 */
import { Gauge, type Registry } from 'prom-client';
import { ALL_QUEUES } from '../queue/queues.js';
import type { OpsSource } from './ops-source.js';
import { promptStatusCounts } from './prompt-batch-reads.js';
import { exportLagSeconds, newestCompleteDays } from './visitor-reads.js';
import { openReader } from './warehouse-reader.js';
import { withTimeout } from './with-timeout.js';

const JOB_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed'] as const;

/** Registers the shared gauges; the returned function reads them all now. */
export function sharedGauges(registers: Registry[], scrapeTimeoutMs: number, clock: () => Date = () => new Date()): (source: OpsSource) => Promise<void> {
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
    const now = clock();
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

  return async (source) => {
    await Promise.all([scrape('queues', readQueues(source)), scrape('warehouse', readWarehouse(source))]);
  };
}
