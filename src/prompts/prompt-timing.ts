/** The timing settings of prompt steps, resolved from config, and the plain backoff. */

export interface PromptTiming {
  /** First poll after a send, and first re-check of a busy agent job. */
  pollInitialMs: number;
  /** Ceiling of the doubling poll interval. */
  pollMaxMs: number;
  /** After the send (or after first finding the job busy), the end of waiting. */
  deadlineMs: number;
  /** Polls that must show the status from before the send, unchanged, before it counts as this send's outcome. @default 3 */
  unchangedPollsToSettle: number;
  /** And this long after the send: the job may not have picked the message up yet. @default 10000 */
  settleMs: number;
  /** Failed checks or unconnected sends in a row after which a prompt is rejected unsent. @default 10 */
  maxConsecutiveFailures: number;
  /** Longer than any send can take (the API timeout and a margin): a job guarding a send in progress waits this long. */
  sendGuardMs: number;
}

/** Delay before the (n+1)-th check: pollInitialMs doubling up to pollMaxMs. */
export function backoffMs(timing: PromptTiming, n: number): number {
  return Math.min(timing.pollMaxMs, timing.pollInitialMs * 2 ** Math.min(n, 30));
}
