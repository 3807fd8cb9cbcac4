/** The upstream operations; errors, events and logs name the one they belong to. */
export type ApiOperation = 'getAnalytics' | 'sendMessage' | 'createAgentJob' | 'getAgentJob';

/**
 * Why an attempt failed, as a stable label for metrics and logs. Every `MintlifyApiError`
 * carries one; an `AmbiguousSendError` carries the reason of the failure it wraps.
 */
export type ApiFailureReason =
  | 'rate_limited'
  | 'server_error'
  | 'network'
  | 'timeout'
  | 'invalid_response'
  | 'invalid_request'
  | 'auth'
  | 'not_found'
  | 'unexpected_status'
  | 'aborted';
