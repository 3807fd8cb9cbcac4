/**
 * Which failures are worth another attempt, read off each error's own verdict (`retryable`,
 * `mayHaveReachedServer`). Reads are idempotent: anything transient is retried. The message and
 * create POSTs are not: they are retried only when the failure proves the server did not take
 * them (a 429, or a connection that was never established).
 */
import { RateLimitedError, ServerError, type MintlifyApiError } from './errors/index.js';

export function isRetryableRead(error: MintlifyApiError): boolean {
  return error.retryable;
}

export function isRetryableSend(error: MintlifyApiError): boolean {
  return error.retryable && !error.mayHaveReachedServer;
}

/** A send failure after which the message was certainly not processed (else it is ambiguous). */
export function provesNotSent(error: MintlifyApiError): boolean {
  return !error.mayHaveReachedServer;
}

/** The wait the server asked for, which a retry must not undercut. */
export function serverRequestedWaitMs(error: MintlifyApiError): number {
  if (error instanceof RateLimitedError) return error.retryAfterMs;
  if (error instanceof ServerError) return error.retryAfterMs ?? 0;
  return 0;
}
