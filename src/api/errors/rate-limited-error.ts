import { MintlifyApiError } from './mintlify-api-error.js';
import type { ApiOperation } from '../api-operation.js';

/** 429: the organization's (or project's) budget is spent; wait `retryAfterMs` before any request. */
export class RateLimitedError extends MintlifyApiError {
  override name = 'RateLimitedError';
  override readonly reason = 'rate_limited';
  override get retryable(): boolean {
    return true;
  }
  override get mayHaveReachedServer(): boolean {
    return false;
  }
  /** From `Retry-After` (seconds or HTTP date), or the client's default when the header is absent. */
  readonly retryAfterMs: number;
  /** False when `retryAfterMs` is the client's default rather than the server's word. */
  readonly retryAfterFromServer: boolean;

  constructor(options: { op: ApiOperation; retryAfterMs: number; retryAfterFromServer: boolean; serverMessage?: string }) {
    const detail = options.serverMessage ? `: ${options.serverMessage}` : '';
    const source = options.retryAfterFromServer ? '' : ' (no Retry-After; default)';
    super(`${options.op}: HTTP 429 rate limited, retry after ${options.retryAfterMs} ms${source}${detail}`, {
      op: options.op,
      status: 429,
    });
    this.retryAfterMs = options.retryAfterMs;
    this.retryAfterFromServer = options.retryAfterFromServer;
  }
}
