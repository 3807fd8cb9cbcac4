/**
 * The one place errors become queue control. Failures a retry cannot fix (auth, bad requests,
 * broken pagination or bodies) fail the job for good; the rest are retried with backoff.
 */
import { UnrecoverableError } from 'bullmq';
import { AuthError, InvalidRequestError, InvalidResponseError, NotFoundError } from '../api/index.js';
import { PaginationError, UnstableWindowError } from '../export/errors.js';
import { MintpipeError } from '../errors.js';
import { redactSecrets } from '../logger.js';

export function toQueueError(err: unknown): { error: Error; unrecoverable: boolean } {
  const unrecoverable =
    err instanceof AuthError ||
    err instanceof InvalidRequestError ||
    err instanceof NotFoundError ||
    err instanceof InvalidResponseError ||
    err instanceof PaginationError ||
    err instanceof UnstableWindowError;
  const message = err instanceof Error ? `${err instanceof MintpipeError ? `${err.name}: ` : ''}${redactSecrets(err.message)}` : String(err);
  if (unrecoverable) return { error: new UnrecoverableError(message), unrecoverable: true };
  return { error: err instanceof Error ? err : new Error(message), unrecoverable: false };
}
