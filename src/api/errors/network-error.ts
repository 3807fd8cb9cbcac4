import { MintlifyApiError } from './mintlify-api-error.js';
import type { ApiOperation } from '../api-operation.js';

/** No HTTP answer: refused, unresolvable, reset, closed mid-body. */
export class NetworkError extends MintlifyApiError {
  override name = 'NetworkError';
  override readonly reason = 'network';
  override get retryable(): boolean {
    return true;
  }
  /** A connection that was never established cannot have delivered the request. */
  override get mayHaveReachedServer(): boolean {
    return this.requestSent;
  }
  /**
   * False only when the connection was provably never established (refused, DNS failure, connect
   * timeout): the server cannot have seen the request, so even a send may be retried.
   */
  readonly requestSent: boolean;
  /** The system/undici error code, e.g. `ECONNREFUSED`, `UND_ERR_SOCKET`. */
  readonly code: string | undefined;

  constructor(options: { op: ApiOperation; requestSent: boolean; code?: string; detail: string; cause?: unknown }) {
    const phase = options.requestSent ? '' : ' before connecting';
    super(`${options.op}: network error${phase} (${options.code ?? 'no code'}): ${options.detail}`, options);
    this.requestSent = options.requestSent;
    this.code = options.code;
  }
}
