/**
 * Processor of the nightly `plan-nightly` job (created by the job scheduler): computes the night's
 * windows for the time the run was scheduled (not when a worker got to it) and enqueues them.
 */
import type { Job, Queue } from 'bullmq';
import type { Logger } from '../src/logger.js';
import { enqueueWindows } from '../src/export/enqueue.js';
import { planNightly, type NightlySettings } from '../src/export/nightly-plan.js';
import { reapAbandonedRuns } from '../src/export/reap-abandoned.js';
import type { Warehouse } from '../src/warehouse/index.js';

export const PLAN_NIGHTLY_JOB = 'plan-nightly';

export interface PlanNightlyData {
  /** Overrides the run time (ISO), for a manual replay of a night. */
  runAt?: string;
}

export function createPlanNightlyProcessor(deps: { queue: Queue; settings: NightlySettings; logger: Logger; warehouse?: Warehouse }) {
  return async function planNightlyJob(job: Job<PlanNightlyData>) {
    // Runs whose jobs were lost are marked abandoned first, so a window of tonight's plan that has
    // one can resume from its rows (and the export_runs view stops calling it running).
    // A failure to reap must not cost the night its windows: it is logged, and tried again tomorrow.
    if (deps.warehouse) {
      await reapAbandonedRuns({ warehouse: deps.warehouse, queue: deps.queue, logger: deps.logger }).catch((err: unknown) =>
        deps.logger.error({ event: 'reap_failed', err }, 'could not look for abandoned runs'),
      );
    }
    const runAt = job.data.runAt ? new Date(job.data.runAt) : new Date(job.timestamp + (job.opts.delay ?? 0));
    const windows = planNightly(runAt, deps.settings);
    const enqueued = await enqueueWindows(deps.queue, windows, { datasetOrder: deps.settings.datasets });
    deps.logger.info(
      { event: 'nightly_planned', queue: job.queueName, jobId: job.id, runAt: runAt.toISOString(), windows: enqueued.length, added: enqueued.filter((e) => e.added).length },
      'nightly windows enqueued',
    );
    return { runAt: runAt.toISOString(), windows: enqueued.map((e) => ({ ...e.window, jobId: e.jobId, added: e.added })) };
  };
}
