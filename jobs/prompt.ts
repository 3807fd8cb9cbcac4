/**
 * Processor of the prompts queue. `batch` jobs start a submitted batch (prompt-batch.ts); `prompt` jobs send one
 * prompt and poll its agent job, one step per run (src/prompts/prompt-step.ts). A step that must
 * wait (poll interval, busy agent job, budget, 429) becomes a delayed job: no worker sleeps.
 * Errors the queue should retry are rethrown; when the queue gives up, the prompt ends with what
 * is known and its lane moves on.
 */
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import {
  abandonPrompt,
  BATCH_JOB,
  createPromptContext,
  runPromptStep,
  type PromptDeps,
} from '../src/prompts/index.js';
import { InvalidJobDataError, parsePromptQueueJob, type PromptQueueJob } from '../src/prompts/prompt-job-data.js';
import { budgetSpent, lastAttempt } from '../src/queue/crash-budget.js';
import type { JobUpstream } from '../src/queue/job-upstream.js';
import { toQueueError } from './job-control.js';
import { processBatchJob } from './prompt-batch.js';

/** The prompts queue's processor, and a wait for the ledger writes its runs left behind. */
export type PromptProcessor = ((job: Job, token?: string) => Promise<unknown>) & { idle(): Promise<void> };

/** `deps.upstream`: where this worker sends (a batch submitted for another is not started). */
export function createPromptProcessor(deps: PromptDeps & { upstream?: JobUpstream }): PromptProcessor {
  const ctx = createPromptContext(deps);
  return Object.assign(processPrompt, { idle: () => ctx.writer.idle() });

  async function processPrompt(job: Job, token?: string): Promise<unknown> {
    // Every line of this run carries the queue and the job id (the step adds batch, prompt, project, job).
    const jobCtx = { ...ctx, logger: ctx.logger.child({ queue: job.queueName, jobId: job.id }) };
    // Checked before anything runs: a job with bad data fails alone, for good, and records nothing.
    let checked: PromptQueueJob;
    try {
      checked = parsePromptQueueJob(job.name, job.data);
    } catch (err) {
      if (!(err instanceof InvalidJobDataError)) throw err;
      jobCtx.logger.warn({ event: 'prompt_job_invalid', reason: err.message }, 'prompt job has bad data');
      throw new UnrecoverableError(`${err.name}: ${err.message}`);
    }
    if (checked.name === BATCH_JOB) return processBatchJob(jobCtx, job, checked.data, deps.upstream);
    const data = checked.data;
    if (budgetSpent(job)) {
      // Its worker crashed until the attempts were spent (src/queue/crash-budget.ts): end the
      // prompt with what is known (a `sending` mark becomes ambiguous) so the ledger says why.
      const reason = `its worker stopped (crashed or was killed) ${job.stalledCounter} time(s) and the step failed ${job.attemptsMade} time(s): the ${job.opts.attempts ?? 1} attempts are spent`;
      jobCtx.logger.warn({ event: 'prompt_crash_budget_spent', prompt: data.promptId, stalls: job.stalledCounter, failures: job.attemptsMade }, 'prompt job crashed too often');
      await abandonPrompt(jobCtx, data, reason);
      const error = new UnrecoverableError(reason);
      error.stack = `${error.name}: ${reason}`;
      throw error;
    }
    try {
      const outcome = await runPromptStep(jobCtx, data);
      if (outcome.kind === 'wait') {
        await job.moveToDelayed(Date.now() + outcome.delayMs, token);
        throw new DelayedError();
      }
      return outcome;
    } catch (err) {
      if (err instanceof DelayedError) throw err;
      const { error, unrecoverable } = toQueueError(err);
      const final = unrecoverable || lastAttempt(job);
      jobCtx.logger.warn({ event: 'prompt_job_failed', prompt: data.promptId, final, err: error }, 'prompt job failed');
      if (final) await abandonPrompt(jobCtx, data, error.message);
      throw error;
    }
  }
}
