/**
 * Runs left `running` with no job that will still run them (Redis lost the job, or the job ended
 * while the run's final event could not be written) are marked `abandoned` by every process that
 * works the export queue — start, worker, and an export running its own workers — when its workers
 * start and every few minutes after, not only by the nightly plan: the next export of the window
 * then resumes the run instead of fetching it again, and `status` counts it as failed meanwhile.
 */
import type { Queue } from 'bullmq';
import { reapAbandonedRuns } from '../export/reap-abandoned.js';
import type { Logger } from '../logger.js';
import type { Warehouse } from '../warehouse/index.js';

/** How often a long-running process looks again. */
const REAP_EVERY_MS = 10 * 60_000;

export interface LeftoverRunsDeps {
  warehouse: Warehouse;
  queue: Queue;
  logger: Logger;
  /** How old a run's last event must be. */
  idleMs: number;
}

/** Looks once; a failure is logged (a warehouse away must not stop the workers from starting). */
export async function reapLeftoverRuns(deps: LeftoverRunsDeps): Promise<void> {
  try {
    const { reaped } = await reapAbandonedRuns(deps);
    if (reaped.length > 0) deps.logger.info({ event: 'leftover_runs_abandoned', runs: reaped.length }, 'runs left running without a job marked abandoned');
  } catch (err) {
    deps.logger.error({ event: 'reap_failed', err }, 'could not look for runs left running');
  }
}

/** Looks now, then every few minutes; returns the stop. */
export async function keepReaping(deps: LeftoverRunsDeps): Promise<() => void> {
  await reapLeftoverRuns(deps);
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= reapLeftoverRuns(deps).finally(() => {
      running = undefined;
    });
  }, REAP_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
