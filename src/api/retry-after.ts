/**
 * Used when a 429 carries no (usable) Retry-After. The analytics budget is 100 requests an hour,
 * so a minute is the shortest wait that is likely to help.
 */
export const DEFAULT_RETRY_AFTER_MS = 60_000;

/**
 * The longest wait an upstream may ask for: the default budget window. A longer hint (ten years,
 * or a number too big for Redis) is capped to it, so one answer cannot stop every export.
 */
export const DEFAULT_MAX_RETRY_AFTER_MS = 3_600_000;

/**
 * `Retry-After` as milliseconds from now: delta-seconds, a non-negative integer (`120`), or an
 * HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`). A date in the past means 0. Undefined when absent
 * or anything else (`-1`, `1.5`, `1e3`, `abc`). An integer too large for a number is Infinity:
 * the caller caps it.
 */
export function parseRetryAfterMs(header: string | null, nowMs: number = Date.now()): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // Only date-shaped text: Date.parse would also accept "-5" or "1e3".
  if (!/[a-z]/i.test(value)) return undefined;
  const dateMs = Date.parse(value);
  if (Number.isNaN(dateMs)) return undefined;
  return Math.max(0, dateMs - nowMs);
}

/** A parsed Retry-After within `maxMs`, and what the server asked for when that was more. */
export interface BoundedRetryAfter {
  ms: number | undefined;
  /** Set when the server asked for more than `maxMs` (a finding). */
  askedMs?: number;
}

export function boundRetryAfter(header: string | null, maxMs: number, nowMs: number = Date.now()): BoundedRetryAfter {
  const ms = parseRetryAfterMs(header, nowMs);
  if (ms === undefined || ms <= maxMs) return { ms };
  return { ms: maxMs, askedMs: ms };
}
