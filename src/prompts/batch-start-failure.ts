/**
 * A batch whose batch job ended for good before it started the batch (its attempts spent by
 * crashes and failures, or a failure no retry fixes): nothing moves its queued prompts until a
 * start is asked for again. Its prompts are not rejected — the cause may pass (a warehouse
 * outage) and they were never sent — so the batch carries the reason, `prompts status` shows it
 * and a follower stops on it instead of waiting forever.
 */
import { MintpipeError } from '../errors.js';

/** Longest reason kept: it is shown on one line of `prompts status`. */
const MAX_REASON_CHARS = 500;

/** The reason as one line: whitespace runs (an engine's multi-line error) become one space. */
export function startFailureReason(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_REASON_CHARS ? `${line.slice(0, MAX_REASON_CHARS - 1)}…` : line;
}

/** `did not start: … ; 3 prompt(s) still queued: \`mintpipe prompts recover B\` starts it again`. */
export function startFailureLine(batchId: string, reason: string, queued: number): string {
  return `did not start: ${reason}; ${queued} prompt(s) still queued: \`mintpipe prompts recover ${batchId}\` starts it again`;
}

/** Following a batch whose start failed: only `prompts recover` moves it on (exit 1). */
export class BatchStartFailedError extends MintpipeError {
  override name = 'BatchStartFailedError';
  constructor(
    readonly batchId: string,
    readonly reason: string,
    queued: number,
  ) {
    super(`batch ${batchId} ${startFailureLine(batchId, reason, queued)}`);
  }
}
