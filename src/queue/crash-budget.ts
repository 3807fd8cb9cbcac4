/**
 * One budget per job for everything that can end a run of it: a failure (the processor threw) and
 * a crash (its worker died, so BullMQ found the job stalled) both spend one of the job's attempts.
 * BullMQ counts the two apart (`attemptsMade`, `stalledCounter`) and fails a job that stalls more
 * than the worker's `maxStalledCount` on its own, without running the processor, so nothing would
 * record why. So workers set `maxStalledCount` to the attempts (BullMQ's limit is only a backstop)
 * and the processors end a job whose budget is spent themselves, when it starts again, recording
 * what the run or the prompt was left at, or why a batch did not start. See docs/operations.md,
 * "Crash limits".
 */
import type { Job } from 'bullmq';

/** Attempts of every export window and prompt job: failures and crashes together. */
export const JOB_ATTEMPTS = 8;

/**
 * Workers' `maxStalledCount`: a stalled job is put back (not failed) up to the attempts, so the
 * processor sees it once more and ends it with its bookkeeping.
 */
export const MAX_STALLED_COUNT = JOB_ATTEMPTS;

/** Attempts a job has spent: runs that failed plus runs cut off by a crash. */
export function attemptsSpent(job: Pick<Job, 'attemptsMade' | 'stalledCounter'>): number {
  return job.attemptsMade + (job.stalledCounter ?? 0);
}

/** The job's budget of attempts (its own `attempts` option, one when it has none). */
export function attemptsAllowed(job: Pick<Job, 'opts'>): number {
  return job.opts.attempts ?? 1;
}

/** True when the job starts with no attempt left: crashes spent what failures did not. */
export function budgetSpent(job: Pick<Job, 'attemptsMade' | 'stalledCounter' | 'opts'>): boolean {
  return attemptsSpent(job) >= attemptsAllowed(job);
}

/** True when a failure of the run now going on spends the job's last attempt. */
export function lastAttempt(job: Pick<Job, 'attemptsMade' | 'stalledCounter' | 'opts'>): boolean {
  return attemptsSpent(job) + 1 >= attemptsAllowed(job);
}
