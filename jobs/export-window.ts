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
import { recordRunEvent } from '../src/warehouse/index.js';

export interface WindowJobResult {
  runId: string;
  rows: number;
  pages: number;
  requests: number;
}

export function createWindowProcessor(deps: ExportDeps) {
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
    try {
      const outcome = await exportWindow({ ...deps, logger }, { ...data, checkpoint: data.checkpoint }, {
        checkpoint: async (checkpoint) => {
          await job.updateData({ ...job.data, checkpoint });
        },
        progress: async (cp) => {
          await job.updateProgress({ rows: cp.rows, pages: cp.pages, requests: cp.requests, offset: cp.offset });
        },
      });
      if (outcome.kind === 'waiting') {
        await job.moveToDelayed(Date.now() + outcome.waitMs, token);
        throw new DelayedError();
      }
      await job.updateProgress({ rows: outcome.rows, pages: outcome.pages, requests: outcome.requests, done: true });
      return { runId: outcome.runId, rows: outcome.rows, pages: outcome.pages, requests: outcome.requests };
    } catch (err) {
      if (err instanceof DelayedError) throw err;
      const queueError = toQueueError(err);
      const final = queueError.unrecoverable || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
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
