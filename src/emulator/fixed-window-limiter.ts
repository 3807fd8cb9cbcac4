/**
 * The server side of a rate limit: at most `limit` requests per key in each fixed window aligned
 * to multiples of `windowMs` since the epoch (how Mintlify counts "100 per hour"). A refused
 * request does not consume budget.
 */
import type { RateLimit } from '../../config/durations.js';

export type LimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export class FixedWindowLimiter {
  private readonly windows = new Map<string, { startMs: number; used: number }>();

  constructor(
    private readonly rate: RateLimit,
    private readonly now: () => number,
  ) {}

  /** Counts one request for `key`, or refuses it with the whole seconds until the window resets. */
  take(key: string): LimitDecision {
    const nowMs = this.now();
    const startMs = Math.floor(nowMs / this.rate.windowMs) * this.rate.windowMs;
    let window = this.windows.get(key);
    if (!window || window.startMs !== startMs) {
      window = { startMs, used: 0 };
      this.windows.set(key, window);
    }
    if (window.used >= this.rate.limit) {
      // Rounded up, and at least 1: a client that waits this long always lands in the next window.
      const retryAfterSeconds = Math.max(1, Math.ceil((startMs + this.rate.windowMs - nowMs) / 1000));
      return { allowed: false, retryAfterSeconds };
    }
    window.used++;
    return { allowed: true };
  }
}
