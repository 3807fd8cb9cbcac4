import { MintlifyApiError } from './mintlify-api-error.js';
import type { ApiOperation } from '../api-operation.js';

/**
 * The request itself is wrong: the server answered 400, or the client refused to send it (no
 * status) because it could only waste a request of the budget. Never retried.
 */
export class InvalidRequestError extends MintlifyApiError {
  override name = 'InvalidRequestError';
  override readonly reason = 'invalid_request';
  override get retryable(): boolean {
    return false;
  }
  override get mayHaveReachedServer(): boolean {
    return false;
  }
  /** The server's `error` text, or the client's own objection. */
  readonly serverMessage: string;
  /** The server's `details[].message` texts. */
  readonly details: readonly string[];

  constructor(options: { op: ApiOperation; status?: number; serverMessage: string; details?: readonly string[] }) {
    const details = options.details ?? [];
    const what = options.status === undefined ? 'invalid request' : `HTTP ${options.status} invalid request`;
    const extra = details.length > 0 ? ` (${details.join('; ')})` : '';
    super(`${options.op}: ${what}: ${options.serverMessage}${extra}`, options);
    this.serverMessage = options.serverMessage;
    this.details = details;
  }
}
