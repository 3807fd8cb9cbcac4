import { MintlifyApiError } from './mintlify-api-error.js';
import type { ApiOperation } from '../api-operation.js';

/** 404: the project or agent job does not exist. Never retried; a send ends as `rejected`. */
export class NotFoundError extends MintlifyApiError {
  override name = 'NotFoundError';
  override readonly reason = 'not_found';
  override get retryable(): boolean {
    return false;
  }
  override get mayHaveReachedServer(): boolean {
    return false;
  }

  constructor(options: { op: ApiOperation; serverMessage?: string }) {
    const detail = options.serverMessage ? `: ${options.serverMessage}` : '';
    super(`${options.op}: HTTP 404 not found${detail}`, { op: options.op, status: 404 });
  }
}
