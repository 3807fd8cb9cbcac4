import { MintlifyApiError } from './mintlify-api-error.js';
import type { ApiFailureReason } from '../api-operation.js';

/**
 * A message POST failed in a way that does not prove the server did not take it (5xx, timeout,
 * reset after the request went out, malformed 200 body, caller abort in flight). It is never
 * retried: the prompt becomes `ambiguous` and its agent job is still polled.
 */
export class AmbiguousSendError extends MintlifyApiError {
  override name = 'AmbiguousSendError';
  /** Why the outcome is unknown: the reason of the underlying failure (`cause`). */
  override readonly reason: ApiFailureReason;

  constructor(options: { cause: unknown }) {
    const cause = options.cause;
    const reason: ApiFailureReason = cause instanceof MintlifyApiError ? cause.reason : 'aborted';
    const detail = cause instanceof MintlifyApiError ? cause.message : 'aborted by the caller while in flight';
    super(`sendMessage: the message may have been processed (${reason}); not resent: ${detail}`, {
      op: 'sendMessage',
      status: cause instanceof MintlifyApiError ? cause.status : undefined,
      cause,
    });
    this.reason = reason;
  }
}
