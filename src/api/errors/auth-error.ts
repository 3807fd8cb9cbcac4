import { MintlifyApiError } from './mintlify-api-error.js';
import type { ApiOperation } from '../api-operation.js';

/** 401/403: the API key was refused. Never retried — no amount of waiting fixes a key. */
export class AuthError extends MintlifyApiError {
  override name = 'AuthError';
  override readonly reason = 'auth';
  override get retryable(): boolean {
    return false;
  }
  override get mayHaveReachedServer(): boolean {
    return false;
  }

  constructor(options: { op: ApiOperation; status: number; serverMessage?: string }) {
    const detail = options.serverMessage ? `: ${options.serverMessage}` : '';
    super(`${options.op}: HTTP ${options.status}, the API key was refused (check MINTLIFY_API_KEY)${detail}`, options);
  }
}
