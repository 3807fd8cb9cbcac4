/**
 * Marks `abandoned` the runs that stay `running` with no live job: their jobs were lost from Redis
 * (a restart without persistence, an eviction) or removed, or ended (failed, completed) while the
 * run's final event could not be written. A run is only a candidate once its last event is `idleMs`
 * old, so a job that is being enqueued, adopting the run or moving between states is never
 * mistaken for a lost one; and it is reaped only when no job in a live state (waiting, active —
 * held by a worker's lock, or about to be found stalled and put back —, delayed, prioritized; a
 * paused queue keeps its jobs waiting) names it. Run by every start, worker and export that works
 * the export queue (src/cli/leftover-runs.ts) and by the nightly plan. Its staged rows stay: the window resumes from them
 * (latestResumableRun) when it is enqueued again, and they are pruned only once a later run of
 * the window completes, or past the retention (prune.ts).
 */
import type { Queue } from 'bullmq';
import { getDataset, isDatasetName } from '../datasets/index.js';
import type { Logger } from '../logger.js';
import { recordRunEvent, runningRunsUntouchedSince, storedRows, type RunOfWindow, type Warehouse } from '../warehouse/index.js';
import { exportRunIds, jobIdOfRun } from './enqueue.js';

/** BullMQ states in which a job will still run. */
const LIVE_STATES = ['active', 'waiting', 'delayed', 'prioritized', 'waiting-children'] as const;
const PAGE = 500;

export interface ReapOptions {
  warehouse: Warehouse;
  /** The export queue, whose jobs carry the run ids in their data. */
  queue: Queue;
  /** A run's last event must be this old for it to be reaped. @default 600000 (10 minutes) */
  idleMs?: number;
  /** @default now */
  now?: Date;
  logger?: Logger;
}

export interface ReapResult {
  /** Runs marked abandoned. */
  reaped: RunOfWindow[];
}

export const DEFAULT_REAP_IDLE_MS = 10 * 60_000;

export async function reapAbandonedRuns(options: ReapOptions): Promise<ReapResult> {
  const now = options.now ?? new Date();
  const candidates = await runningRunsUntouchedSince(options.warehouse, new Date(now.getTime() - (options.idleMs ?? DEFAULT_REAP_IDLE_MS)));
  if (candidates.length === 0) return { reaped: [] };
  const live = await liveRunIds(options.queue);
  const reaped: RunOfWindow[] = [];
  for (const run of candidates) {
    if (live.has(run.runId)) continue;
    const state = await jobState(options.queue, run.runId);
    if ((LIVE_STATES as readonly string[]).includes(state)) continue;
    const rows = isDatasetName(run.dataset) ? await storedRows(options.warehouse, getDataset(run.dataset).table, run.runId) : run.rows;
    await recordRunEvent(options.warehouse, {
      ...run,
      status: 'abandoned',
      rows,
      error: `${state === 'unknown' ? 'its job is gone from Redis (lost?)' : `its job ended (${state}) without the run's final event`}; its ${rows} staged rows are kept for a resume`,
    });
    options.logger?.warn(
      { event: 'run_abandoned', runId: run.runId, dataset: run.dataset, project: run.projectId, window: `${run.dateFrom}..${run.dateTo}`, rows },
      'run has no live job: marked abandoned',
    );
    reaped.push({ ...run, rows });
  }
  return { reaped };
}

/** Run ids named by jobs that will still run: the run they started with, and the one they are on. */
async function liveRunIds(queue: Queue): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let start = 0; ; start += PAGE) {
    const jobs = await queue.getJobs([...LIVE_STATES], start, start + PAGE - 1, true);
    for (const job of jobs) for (const runId of exportRunIds(job?.data)) ids.add(runId);
    // BullMQ pages each state's list separately: done when no list has more.
    if (jobs.length === 0) return ids;
  }
}

/** A second look, by job id, for a job that moved between states while they were listed. */
async function jobState(queue: Queue, runId: string): Promise<string> {
  return queue.getJobState(jobIdOfRun(runId));
}
