import { MintpipeError } from '../../errors.js';
import type { ApiFailureReason, ApiOperation } from '../api-operation.js';

export interface MintlifyApiErrorOptions {
  op: ApiOperation;
  /** HTTP status of the answer, when there was one. */
  status?: number;
  cause?: unknown;
}

/**
 * Base of every failure of a Mintlify API call. Used as is for statuses no subclass models
 * (an unexpected redirect, 409, 422…). Messages are built from the status and the body's `error`
 * text only — never from request headers — so the API key cannot end up in one.
 */
export class MintlifyApiError extends MintpipeError {
  override name = 'MintlifyApiError';
  readonly op: ApiOperation;
  readonly status: number | undefined;
  readonly reason: ApiFailureReason = 'unexpected_status';
  /** Attempts made before this error was thrown (set by the client's retry loop). @default 1 */
  attempts = 1;

  /** Whether another attempt of a read can help (the failure was transient). @default false */
  get retryable(): boolean {
    return false;
  }

  /**
   * Whether the request may have reached the server and been processed: a non-idempotent POST that
   * failed this way is ambiguous, never resent. False only where the failure proves it was not
   * (refused before processing, or never sent). @default true
   */
  get mayHaveReachedServer(): boolean {
    return true;
  }

  constructor(message: string, options: MintlifyApiErrorOptions) {
    super(message, { cause: options.cause });
    this.op = options.op;
    this.status = options.status;
  }
}
