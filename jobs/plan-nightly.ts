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
import { dayInTimeZone } from '../src/export/dates.js';
import { planTriageNight } from '../src/triage/nightly-triage.js';
import { TRIAGE_NIGHT_JOB } from './triage-night.js';

export const PLAN_NIGHTLY_JOB = 'plan-nightly';

export interface PlanNightlyData {
  /** Overrides the run time (ISO), for a manual replay of a night. */
  runAt?: string;
}

export function createPlanNightlyProcessor(deps: {
  queue: Queue;
  settings: NightlySettings;
  logger: Logger;
  warehouse?: Warehouse;
  /** MINTPIPE_TRIAGE: recipes run once the night's windows they read are complete. @default none */
  triage?: { nightly: string[]; recipesDir: string | undefined };
}) {
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
    if (deps.triage?.nightly.length) await addTriageNight(deps.queue, deps.triage, windows, { runAt, plannedAtMs: Date.now(), settings: deps.settings });
    return { runAt: runAt.toISOString(), windows: enqueued.map((e) => ({ ...e.window, jobId: e.jobId, added: e.added })) };
  };
}

/** One triage job per recipe of the night (a stable id: a replayed night adds none). */
async function addTriageNight(
  queue: Queue,
  triage: { nightly: string[]; recipesDir: string | undefined },
  windows: ReturnType<typeof planNightly>,
  night: { runAt: Date; plannedAtMs: number; settings: NightlySettings },
): Promise<void> {
  const date = dayInTimeZone(night.runAt, night.settings.timezone);
  const jobs = planTriageNight(triage.nightly, windows, { night: date, plannedAtMs: night.plannedAtMs, projects: night.settings.projects, recipesDir: triage.recipesDir });
  for (const data of jobs) {
    await queue.add(TRIAGE_NIGHT_JOB, data, { jobId: `triage-${data.recipe}-${date}`, attempts: 3, backoff: { type: 'exponential', delay: 60_000 }, removeOnComplete: { age: 30 * 86_400 }, removeOnFail: { age: 30 * 86_400 } });
  }
}
