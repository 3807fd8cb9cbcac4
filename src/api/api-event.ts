import type { ApiFailureReason, ApiOperation } from './api-operation.js';

/** One per attempt, for metrics and logs. Carries no request data beyond the operation. */
export interface ApiEvent {
  op: ApiOperation;
  /** 1-based. */
  attempt: number;
  /** HTTP status, when an answer came. */
  status?: number;
  durationMs: number;
  /** `retry`: this attempt failed and another follows; `error`: the call fails with it. */
  outcome: 'ok' | 'retry' | 'error';
  reason?: ApiFailureReason;
}
