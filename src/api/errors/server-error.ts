import { MintlifyApiError } from './mintlify-api-error.js';
import type { ApiOperation } from '../api-operation.js';

/** 5xx: the server failed. Reads retry it; a send cannot know whether it was processed. */
export class ServerError extends MintlifyApiError {
  override name = 'ServerError';
  override readonly reason = 'server_error';
  override get retryable(): boolean {
    return true;
  }
  override get mayHaveReachedServer(): boolean {
    return true;
  }
  /** From `Retry-After` when the server sent one (e.g. with a 503); retries wait at least this long. */
  readonly retryAfterMs: number | undefined;

  constructor(options: { op: ApiOperation; status: number; serverMessage?: string; retryAfterMs?: number }) {
    const detail = options.serverMessage ? `: ${options.serverMessage}` : '';
    super(`${options.op}: HTTP ${options.status} server error${detail}`, options);
    this.retryAfterMs = options.retryAfterMs;
  }
}
