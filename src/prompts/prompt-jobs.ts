/**
 * The prompts queue's two job types and their ids. Ids are stable, so adding a job that exists is
 * a no-op: a lane's successor can be added again after a crash without running twice, and a
 * batch submitted twice adds nothing. A prompt job exists only for the head of its lane.
 */
import type { JobUpstream } from '../queue/job-upstream.js';
import type { Job, JobsOptions, Queue } from 'bullmq';
import { JOB_ATTEMPTS } from '../queue/crash-budget.js';
import type { PromptRecord } from './prompt-record.js';

/** Sends one prompt and polls its agent job (re-run as a delayed job between steps). */
export const PROMPT_JOB = 'prompt';
/** Records a submitted batch's prompts in the warehouse and lines them up in their lanes. */
export const BATCH_JOB = 'batch';

export interface PromptJobData {
  batchId: string;
  promptId: string;
  /** Send generation (0, then +1 per explicit resend). */
  attempt: number;
}

export interface BatchJobData {
  batchId: string;
  /** Rebuild the batch from the ledger when Redis lost it (`prompts recover`). */
  recover?: true;
  /** Where the submitting shell sends (when it named an upstream): only a worker sending there starts it. */
  upstream?: JobUpstream;
}

export function promptJobId(promptId: string, attempt: number): string {
  return `p-${promptId}-${attempt}`;
}

/** Generation 0 is the submission; each `resend` starts the batch again under a new generation. */
export function batchJobId(batchId: string, generation: number): string {
  return `b-${batchId}-${generation}`;
}

/**
 * Attempts cover failures of our own side (Redis, warehouse, auth); waits (budget, busy agent
 * job, polls) are delays and do not spend attempts. A crash of the worker spends one too
 * (src/queue/crash-budget.ts).
 */
const JOB_OPTIONS: JobsOptions = {
  attempts: JOB_ATTEMPTS,
  backoff: { type: 'exponential', delay: 2000 },
  removeOnComplete: { age: 7 * 86_400, count: 100_000 },
  removeOnFail: { age: 30 * 86_400 },
};

export async function addPromptJobs(
  queue: Queue,
  records: ReadonlyArray<Pick<PromptRecord, 'batchId' | 'promptId' | 'attempt'>>,
  options: {
    /**
     * Ahead of the jobs waiting: a lane handed on goes next, so its agent job does not sit idle
     * behind polls that fell due. @default false
     */
    first?: boolean;
    /** Run no sooner than this. @default 0 */
    delayMs?: number;
  } = {},
): Promise<Job[]> {
  if (records.length === 0) return [];
  return queue.addBulk(
    records.map((r) => ({
      name: PROMPT_JOB,
      data: { batchId: r.batchId, promptId: r.promptId, attempt: r.attempt } satisfies PromptJobData,
      opts: {
        ...JOB_OPTIONS,
        jobId: promptJobId(r.promptId, r.attempt),
        ...(options.first ? { lifo: true } : {}),
        ...(options.delayMs ? { delay: options.delayMs } : {}),
      },
    })),
  );
}

export async function addBatchJob(queue: Queue, batchId: string, generation: number, upstream?: JobUpstream): Promise<void> {
  await queue.add(BATCH_JOB, { batchId, ...(upstream ? { upstream } : {}) } satisfies BatchJobData, { ...JOB_OPTIONS, jobId: batchJobId(batchId, generation) });
}

/** A batch job that rebuilds the batch from the ledger first when Redis lost it; returns its job id. */
export async function addRecoverJob(queue: Queue, batchId: string, nowMs = Date.now()): Promise<string> {
  // Redis lost the batch's generation counter with the rest: the time makes the id new.
  const jobId = `b-${batchId}-recover-${nowMs}`;
  await queue.add(BATCH_JOB, { batchId, recover: true } satisfies BatchJobData, { ...JOB_OPTIONS, jobId });
  return jobId;
}

/**
 * Removes the finished (completed or failed) jobs of these prompts, so that adding them again
 * runs them. Only a prompt made again in Redis has such a job while it is open: after Redis lost
 * a batch, a worker that reconnected can add a job for a prompt not yet rebuilt (a command queued
 * while Redis was down), which then completes as "prompt not found" and would make every later add
 * of its id a no-op, leaving the rebuilt prompt without a job.
 */
export async function clearFinishedPromptJobs(queue: Queue, records: ReadonlyArray<Pick<PromptRecord, 'promptId' | 'attempt'>>): Promise<number> {
  let cleared = 0;
  for (let start = 0; start < records.length; start += 100) {
    const found = await Promise.all(records.slice(start, start + 100).map((r) => queue.getJob(promptJobId(r.promptId, r.attempt))));
    for (const job of found) {
      const state = job ? await job.getState() : undefined;
      if (job && (state === 'completed' || state === 'failed')) {
        await job.remove();
        cleared++;
      }
    }
  }
  return cleared;
}

/**
 * Moves a delayed prompt job (as `addPromptJobs` returned it) to run after `delayMs` (0: now); a
 * no-op when it is not delayed any more (BullMQ's changeDelay refuses a job not in the delayed set).
 */
export async function rescheduleDelayedPromptJob(job: Job, delayMs: number): Promise<void> {
  await job.changeDelay(Math.max(0, Math.ceil(delayMs))).catch(() => undefined);
}
