/**
 * Processor of `window` jobs: checks the job's data, runs src/export/export-window.ts for the
 * job's (dataset, project, window), saving its checkpoint in the job, and maps the outcome to queue
 * control: a spent budget becomes a delayed job (no worker held), an integrity or auth failure
 * fails the job for good, anything else is retried by BullMQ with backoff and resumes from the
 * checkpoint.
 */
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import type { ExportJobData } from '../src/export/enqueue.js';
import { exportWindow, runEvent, type ExportDeps } from '../src/export/export-window.js';
import { exportJobDataProblem } from '../src/export/job-data.js';
import { toQueueError } from './job-control.js';
import { windowExportCommand } from '../src/export/export-command.js';
import { budgetSpent, lastAttempt } from '../src/queue/crash-budget.js';
import type { Logger } from '../src/logger.js';
import { upstreamMismatch, type JobUpstream } from '../src/queue/job-upstream.js';
import { recordRunEvent } from '../src/warehouse/index.js';

export interface WindowJobResult {
  runId: string;
  rows: number;
  pages: number;
  requests: number;
}

/** `upstream`: where this worker sends; a window enqueued for another is not run (job-upstream.ts). */
export function createWindowProcessor(deps: ExportDeps, upstream?: JobUpstream) {
  return async function processWindow(job: Job<ExportJobData>, token?: string): Promise<WindowJobResult> {
    const problem = exportJobDataProblem(job.data);
    if (problem !== null) throw new UnrecoverableError(`invalid window job data: ${problem}`);
    const data = job.data;
    const logger = deps.logger.child({
      queue: job.queueName,
      jobId: job.id,
      dataset: data.dataset,
      project: data.projectId,
      window: `${data.dateFrom}..${data.dateTo}`,
    });
    if (budgetSpent(job)) throw await endCrashedWindow(deps, job, logger);
    try {
      const mismatch = upstream && upstreamMismatch(data.upstream, upstream);
      if (mismatch) throw mismatch;
      const outcome = await exportWindow({ ...deps, logger }, { ...data, checkpoint: data.checkpoint }, {
        checkpoint: async (checkpoint) => {
          await job.updateData({ ...job.data, checkpoint });
        },
        progress: async (cp) => {
          await job.updateProgress({ rows: cp.rows, pages: cp.pages, requests: cp.requests, offset: cp.offset });
        },
      });
      if (outcome.kind === 'waiting') {
        // With the attempt it belongs to: a later delay of the same job is a retry after a failure.
        await job.updateProgress({ ...progressOf(job), waitingFor: outcome.for, attempt: job.attemptsMade });
        await job.moveToDelayed(Date.now() + outcome.waitMs, token);
        throw new DelayedError();
      }
      await job.updateProgress({ rows: outcome.rows, pages: outcome.pages, requests: outcome.requests, done: true });
      return { runId: outcome.runId, rows: outcome.rows, pages: outcome.pages, requests: outcome.requests };
    } catch (err) {
      if (err instanceof DelayedError) throw err;
      const queueError = toQueueError(err);
      const final = queueError.unrecoverable || lastAttempt(job);
      const cp = job.data.checkpoint;
      if (final) {
        const failedCheckpoint = cp ?? { runId: data.runId, restarts: 0, startedAt: new Date(job.timestamp).toISOString(), requests: 0, offset: 0, rows: 0, pages: 0 };
        await recordRunEvent(deps.warehouse, runEvent(data, failedCheckpoint, 'failed', queueError.error.message)).catch((recordErr: unknown) =>
          logger.error({ event: 'record_failed_run_failed', err: recordErr }, 'could not record the failed run'),
        );
        // A failed run's rows get pruned, but ClickHouse keeps its batches' dedup tokens: a manual
        // retry of this job must start a fresh run, or its re-inserted batches would be dropped.
        await job.updateData({ ...job.data, runId: `${data.runId}.f${job.attemptsMade + 1}`, checkpoint: undefined }).catch(() => {});
      }
      logger.warn({ event: 'export_failed', final, err: queueError.error }, 'window export failed');
      throw queueError.error;
    }
  };
}

/** The job's progress object (rows, pages, …), or none yet. */
function progressOf(job: Job): Record<string, unknown> {
  return typeof job.progress === 'object' && job.progress !== null ? (job.progress as Record<string, unknown>) : {};
}

/**
 * A window whose worker crashed until its attempts were spent (src/queue/crash-budget.ts): the job
 * fails for good, and its run becomes `abandoned` with its checkpoint, so the retry the error names
 * adopts the rows already staged instead of fetching them again. Returns the error to fail with.
 */
async function endCrashedWindow(deps: ExportDeps, job: Job<ExportJobData>, logger: Logger): Promise<UnrecoverableError> {
  const data = job.data;
  const retry = windowExportCommand(data);
  const cp = data.checkpoint ?? { runId: data.runId, restarts: 0, startedAt: new Date(job.timestamp).toISOString(), requests: 0, offset: 0, rows: 0, pages: 0 };
  const reason = `its worker stopped (crashed or was killed) ${job.stalledCounter} time(s) and the run failed ${job.attemptsMade} time(s): the ${job.opts.attempts ?? 1} attempts are spent`;
  // The run's error is what `status` shows of it: it names the retry too.
  await recordRunEvent(deps.warehouse, runEvent(data, cp, 'abandoned', `${reason}; its ${cp.rows} staged rows are kept for a resume; retry with \`${retry}\``));
  logger.warn({ event: 'export_crash_budget_spent', runId: cp.runId, stalls: job.stalledCounter, failures: job.attemptsMade }, 'window crashed too often: run abandoned');
  const error = new UnrecoverableError(`${reason}; its run is kept (abandoned, ${cp.rows} rows); retry with \`${retry}\``);
  error.stack = `${error.name}: ${error.message}`;
  return error;
}
