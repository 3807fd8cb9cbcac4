/**
 * The one place errors become queue control. Failures a retry cannot fix (auth, bad requests,
 * broken pagination or bodies) fail the job for good; the rest are retried with backoff.
 *
 * What this returns is what gets persisted: BullMQ stores its message as the job's failedReason
 * and its stack in the job's stacktrace, and the export records the message as the run's error.
 * So the message is redacted, and the stack is the message alone: no frames, no local paths.
 */
import { UnrecoverableError } from 'bullmq';
import { AuthError, InvalidRequestError, InvalidResponseError, NotFoundError } from '../src/api/index.js';
import { PaginationError, UnstableWindowError } from '../src/export/errors.js';
import { MintpipeError } from '../src/errors.js';
import { redactSecrets } from '../src/logger.js';

export function toQueueError(err: unknown): { error: Error; unrecoverable: boolean } {
  const unrecoverable =
    err instanceof AuthError ||
    err instanceof InvalidRequestError ||
    err instanceof NotFoundError ||
    err instanceof InvalidResponseError ||
    err instanceof PaginationError ||
    err instanceof UnstableWindowError ||
    // Errors that carry their own verdict (e.g. a fanout dataset with no source run).
    (err instanceof MintpipeError && 'retryable' in err && err.retryable === false);
  const text = err instanceof Error ? `${err instanceof MintpipeError ? `${err.name}: ` : ''}${err.message}` : String(err);
  const message = redactSecrets(text);
  const error = unrecoverable ? new UnrecoverableError(message) : new Error(message);
  error.stack = `${error.name}: ${message}`;
  return { error, unrecoverable };
}
