/**
 * The batch job of the prompts queue (a submission's start, a resend's, a recover's): starts the
 * batch, and when the queue gives up on it — its attempts spent by crashes and failures, or a
 * failure no retry fixes — records why on the batch before failing for good, so `prompts status`
 * and followers say it did not start instead of showing its prompts queued forever. Its prompts
 * stay queued (never sent; the cause may pass): `prompts recover` starts the batch again.
 */
import { UnrecoverableError, type Job } from 'bullmq';
import { startBatch, startFailureReason, type BatchJobData, type PromptContext, type StartedBatch } from '../src/prompts/index.js';
import { attemptsAllowed, budgetSpent, lastAttempt } from '../src/queue/crash-budget.js';
import { upstreamMismatch, type JobUpstream } from '../src/queue/job-upstream.js';
import { toQueueError } from './job-control.js';

/** `upstream`: where this worker sends; a batch submitted for another is not started (job-upstream.ts). */
export async function processBatchJob(ctx: PromptContext, job: Job, data: BatchJobData, upstream?: JobUpstream): Promise<StartedBatch> {
  if (budgetSpent(job)) {
    const reason = `its batch job's worker stopped (crashed or was killed) ${job.stalledCounter} time(s) and the start failed ${job.attemptsMade} time(s): the ${attemptsAllowed(job)} attempts are spent`;
    ctx.logger.warn({ event: 'prompts.batch_crash_budget_spent', batch: data.batchId, stalls: job.stalledCounter, failures: job.attemptsMade }, 'batch job crashed too often');
    throw await endStart(ctx, data, reason);
  }
  try {
    const mismatch = upstream && upstreamMismatch(data.upstream, upstream);
    if (mismatch) throw mismatch;
    return await startBatch(ctx, data);
  } catch (err) {
    const { error, unrecoverable } = toQueueError(err);
    const final = unrecoverable || lastAttempt(job);
    ctx.logger.warn({ event: 'prompts.batch_job_failed', batch: data.batchId, final, err: error }, 'batch job failed');
    if (!final) throw error;
    const when = unrecoverable ? 'the start failed and a retry cannot help' : `the start failed on the last of its ${attemptsAllowed(job)} attempts`;
    throw await endStart(ctx, data, `${when}: ${error.message}`);
  }
}

/** Records the reason on the batch and returns the error that fails the job for good, with it. */
async function endStart(ctx: PromptContext, data: BatchJobData, text: string): Promise<UnrecoverableError> {
  const reason = startFailureReason(text);
  // A recover job of a batch Redis lost, whose rebuild failed, has no batch to record it on: its
  // failed job says why (`prompts recover --wait` prints it).
  const recorded = await ctx.store.recordStartFailure(data.batchId, { reason, atMs: ctx.now() });
  ctx.logger.warn({ event: 'prompts.batch_start_failed', batch: data.batchId, recorded, reason }, 'batch did not start');
  const error = new UnrecoverableError(reason);
  error.stack = `${error.name}: ${reason}`;
  return error;
}
