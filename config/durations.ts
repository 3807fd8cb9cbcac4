/** Parsing of human durations (`250ms`, `5s`, `1h`) and rates (`100/1h`, `off`). */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * The longest delay a Node timer holds (2^31-1 ms, about 24.8 days). `setTimeout` with more fires
 * after 1 ms instead (with only a TimeoutOverflowWarning), so a setting that feeds a timer must stay
 * under it.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Parses `1500`, `250ms`, `5s`, `2m`, `1h`, `1d` into milliseconds; returns undefined when malformed. */
export function parseDurationMs(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/.exec(text.trim());
  if (!match) return undefined;
  const value = Math.round(Number(match[1]) * UNIT_MS[match[2] ?? 'ms']!);
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/** A request budget: at most `limit` requests in any span of `windowMs`. */
export interface RateLimit {
  limit: number;
  windowMs: number;
}

/** Parses `N/DURATION` (`100/1h`, `20/5s`) or `off` (returns null). Undefined when malformed. */
export function parseRate(text: string): RateLimit | null | undefined {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === 'off') return null;
  const match = /^(\d+)\s*\/\s*(.+)$/.exec(trimmed);
  if (!match) return undefined;
  const limit = Number(match[1]);
  const windowMs = parseDurationMs(match[2]!);
  if (!Number.isSafeInteger(limit) || limit < 1 || windowMs === undefined) return undefined;
  return { limit, windowMs };
}

/** Formats a rate back as `N/DURATION` for logs and status output. */
export function formatRate(rate: RateLimit | null): string {
  if (!rate) return 'off';
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    const ms = UNIT_MS[unit]!;
    if (rate.windowMs % ms === 0) return `${rate.limit}/${rate.windowMs / ms}${unit}`;
  }
  return `${rate.limit}/${rate.windowMs}ms`;
}
