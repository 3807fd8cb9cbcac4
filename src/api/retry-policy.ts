/** How a call retries: bounded by attempts AND by total time, with exponential backoff + full jitter. */
export interface RetryPolicy {
  /** Attempts in all, the first included (1 = never retry). @default 6 */
  attempts: number;
  /** Backoff ceiling of the first retry; it doubles each retry. @default 500 */
  baseDelayMs: number;
  /** Backoff ceiling cap. A server's Retry-After may ask for longer and is honoured. @default 30000 */
  maxDelayMs: number;
  /**
   * Time one call may spend in attempts and waits; a wait that would end past it is not started
   * and the last error is thrown instead. Time in `beforeAttempt` (budget waits) does not count.
   * @default 300000
   */
  maxTotalMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  attempts: 6,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxTotalMs: 300_000,
});

/** Later layers win; undefined fields fall through. Refuses nonsense with the field's name. */
export function resolveRetryPolicy(...layers: Array<Partial<RetryPolicy> | undefined>): RetryPolicy {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY };
  for (const layer of layers) {
    for (const key of Object.keys(DEFAULT_RETRY_POLICY) as Array<keyof RetryPolicy>) {
      const value = layer?.[key];
      if (value !== undefined) policy[key] = value;
    }
  }
  if (!Number.isInteger(policy.attempts) || policy.attempts < 1) {
    throw new RangeError(`retry.attempts must be an integer >= 1, got ${policy.attempts}`);
  }
  for (const key of ['baseDelayMs', 'maxDelayMs', 'maxTotalMs'] as const) {
    if (!Number.isFinite(policy[key]) || policy[key] < 0) {
      throw new RangeError(`retry.${key} must be a finite number >= 0, got ${policy[key]}`);
    }
  }
  return policy;
}

/**
 * Full jitter (AWS architecture blog): uniform in [0, min(maxDelayMs, baseDelayMs·2^retryIndex)),
 * so many workers failing together do not come back together.
 */
export function backoffDelayMs(policy: RetryPolicy, retryIndex: number, random: () => number = Math.random): number {
  const ceilingMs = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retryIndex);
  return Math.floor(random() * ceilingMs);
}
