export { MintlifyClient } from './client.js';
export type { CallOptions, MintlifyClientOptions } from './client-options.js';
export type { ApiEvent } from './api-event.js';
export type { ApiFailureReason, ApiOperation } from './api-operation.js';
export { DEFAULT_RETRY_POLICY, backoffDelayMs, resolveRetryPolicy, type RetryPolicy } from './retry-policy.js';
export { boundRetryAfter, DEFAULT_MAX_RETRY_AFTER_MS, DEFAULT_RETRY_AFTER_MS, parseRetryAfterMs } from './retry-after.js';
export {
  AGENT_JOB_STATUSES,
  TERMINAL_STATUSES,
  agentJobSchema,
  isTerminalStatus,
  type AgentJob,
  type AgentJobAnswer,
  type AgentJobStatus,
} from './schemas.js';
export {
  AmbiguousSendError,
  AuthError,
  InvalidRequestError,
  InvalidResponseError,
  MintlifyApiError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  type MintlifyApiErrorOptions,
} from './errors/index.js';
