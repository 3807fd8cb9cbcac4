import { MintlifyApiError } from './mintlify-api-error.js';
import type { ApiOperation } from '../api-operation.js';

/**
 * The request went out and no complete answer came within `timeoutMs` (or the server itself
 * answered 408). Reads retry it; for a send it is ambiguous.
 */
export class TimeoutError extends MintlifyApiError {
  override name = 'TimeoutError';
  override readonly reason = 'timeout';
  override get retryable(): boolean {
    return true;
  }
  override get mayHaveReachedServer(): boolean {
    return true;
  }
  /** The client's per-attempt limit; undefined for a server's 408. */
  readonly timeoutMs: number | undefined;

  constructor(options: { op: ApiOperation; timeoutMs: number } | { op: ApiOperation; status: 408 }) {
    const message =
      'timeoutMs' in options
        ? `${options.op}: no complete answer within ${options.timeoutMs} ms`
        : `${options.op}: HTTP 408, the server timed out waiting for the request`;
    super(message, { op: options.op, status: 'status' in options ? options.status : undefined });
    this.timeoutMs = 'timeoutMs' in options ? options.timeoutMs : undefined;
  }
}
