/**
 * Claim or resume a window's run: where it starts, read from the warehouse (the source of truth
 * for what was loaded), and the run events that say it is running.
 */
import type { Dataset } from '../datasets/index.js';
import type { Logger } from '../logger.js';
import { latestResumableRun, recordRunEvent, runProgress, type RunProgress } from '../warehouse/index.js';
import type { ExportCheckpoint, ExportDeps, ExportHooks, ExportTask } from './export-types.js';
import { END_CURSOR, type PagerState } from './pager.js';

/** A run ready to page: its checkpoint as stored, and where its next page is. */
export interface ClaimedRun {
  /** The checkpoint moved to the position and rows the warehouse holds. */
  checkpoint: ExportCheckpoint;
  /** What the warehouse held for the run when it was claimed. */
  stored: RunProgress;
  /** Where the next page is. */
  position: PagerState;
  /** The run's last stored batch said nothing is left to fetch. */
  ended: boolean;
  /** The job's logger with the run id. */
  log: Logger;
}

export function freshCheckpoint(runId: string, restarts: number): ExportCheckpoint {
  return { runId, restarts, startedAt: new Date().toISOString(), requests: 0, offset: 0, rows: 0, pages: 0 };
}

export function runEvent(task: ExportTask, cp: ExportCheckpoint, status: 'running' | 'failed' | 'unstable' | 'abandoned' | 'cancelled', error = '') {
  return {
    runId: cp.runId,
    dataset: task.dataset,
    projectId: task.projectId,
    dateFrom: task.dateFrom,
    dateTo: task.dateTo,
    kind: task.kind,
    status,
    pages: cp.pages,
    rows: cp.rows,
    requests: cp.requests,
    error,
    startedAt: cp.startedAt,
  };
}

/**
 * A window enqueued again after its job was lost (e.g. Redis restarted empty) resumes the run that
 * was left behind — marked `abandoned`, its rows kept — instead of paying its requests again.
 */
export async function adoptAbandonedRun(deps: ExportDeps, task: ExportTask, hooks: ExportHooks): Promise<ExportCheckpoint | undefined> {
  const run = await latestResumableRun(deps.warehouse, task);
  if (!run) return undefined;
  const checkpoint: ExportCheckpoint = { ...freshCheckpoint(run.runId, 0), startedAt: run.startedAt.toISOString(), requests: run.requests };
  deps.logger.info({ event: 'export_adopt_abandoned', runId: run.runId, rows: run.rows }, 'resuming the run this window left behind');
  await recordRunEvent(deps.warehouse, runEvent(task, { ...checkpoint, rows: run.rows, pages: run.pages }, 'running'));
  await hooks.checkpoint(checkpoint);
  return checkpoint;
}

/**
 * Starts the run of `start` or resumes it after its last stored batch, even when the checkpoint
 * was not saved after that batch (the job's checkpoint may lag the warehouse, never lead it).
 */
export async function claimRun(deps: Pick<ExportDeps, 'warehouse' | 'logger'>, task: ExportTask, dataset: Dataset, start: ExportCheckpoint): Promise<ClaimedRun> {
  const stored = await runProgress(deps.warehouse, dataset.table, start.runId);
  // A run's first event; seq 1 needs no look-up of the run's events (its last event is what readers see).
  if (stored.batches === 0 && start.offset === 0) await recordRunEvent(deps.warehouse, { ...runEvent(task, start, 'running'), seq: 1 });
  const checkpoint: ExportCheckpoint = { ...start, offset: stored.nextOffset, rows: stored.rows };
  // The job's logger already carries queue, job id, dataset, project and window.
  const log = deps.logger.child({ runId: checkpoint.runId });
  if (stored.nextOffset > 0) log.info({ event: 'export_resume', offset: checkpoint.offset, rows: checkpoint.rows }, 'resuming window');
  const resumable = stored.batches > 0 && stored.cursor !== '' && stored.cursor !== END_CURSOR;
  const position: PagerState = { position: stored.nextOffset, cursor: resumable ? stored.cursor : null };
  return { checkpoint, stored, position, ended: stored.cursor === END_CURSOR, log };
}
