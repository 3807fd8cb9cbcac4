/**
 * Which failures are worth another attempt. Reads are idempotent: anything transient is retried.
 * The message POST is not: it is retried only when the failure proves the server did not take
 * it (a 429, or a connection that was never established).
 */
import {
  AuthError,
  InvalidRequestError,
  MintlifyApiError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  TimeoutError,
} from './errors/index.js';

export function isRetryableRead(error: MintlifyApiError): boolean {
  return (
    error instanceof RateLimitedError ||
    error instanceof ServerError ||
    error instanceof NetworkError ||
    error instanceof TimeoutError
  );
}

export function isRetryableSend(error: MintlifyApiError): boolean {
  return error instanceof RateLimitedError || (error instanceof NetworkError && !error.requestSent);
}

/** A send failure after which the message was certainly not processed (else it is ambiguous). */
export function provesNotSent(error: MintlifyApiError): boolean {
  return (
    isRetryableSend(error) ||
    error instanceof AuthError ||
    error instanceof NotFoundError ||
    error instanceof InvalidRequestError
  );
}

/** The wait the server asked for, which a retry must not undercut. */
export function serverRequestedWaitMs(error: MintlifyApiError): number {
  if (error instanceof RateLimitedError) return error.retryAfterMs;
  if (error instanceof ServerError) return error.retryAfterMs ?? 0;
  return 0;
}
