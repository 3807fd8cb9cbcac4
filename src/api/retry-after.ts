/**
 * Used when a 429 carries no (usable) Retry-After. The analytics budget is 100 requests an hour,
 * so a minute is the shortest wait that is likely to help.
 */
export const DEFAULT_RETRY_AFTER_MS = 60_000;

/**
 * `Retry-After` as milliseconds from now: delta-seconds (`120`) or an HTTP date
 * (`Wed, 21 Oct 2015 07:28:00 GMT`). A date in the past means 0. Undefined when absent or unusable.
 */
export function parseRetryAfterMs(header: string | null, nowMs: number = Date.now()): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  // Only date-shaped text: Date.parse would also accept "-5" or "1e3".
  if (!/[a-z]/i.test(value)) return undefined;
  const dateMs = Date.parse(value);
  if (Number.isNaN(dateMs)) return undefined;
  return Math.max(0, dateMs - nowMs);
}
