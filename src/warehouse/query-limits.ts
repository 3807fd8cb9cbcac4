/**
 * The limits every read-only query runs under. They are set by mintpipe in the engine's own
 * settings for that query (never taken from the SQL, whose SETTINGS clauses are refused), so the
 * engine stops a query that exceeds them.
 */
import { parseDurationMs } from '../../config/durations.js';
import { UsageError } from '../errors.js';

export interface QueryLimits {
  /** The engine stops the query after this long (`max_execution_time`). @default 30_000 (30 s) */
  timeoutMs: number;
  /**
   * At most this many rows are returned; more are cut by the engine, and the result says so. `null`:
   * no cap (the machine formats stream every row). @default 100_000
   */
  maxRows: number | null;
  /** The engine stops the query when it needs more memory than this (`max_memory_usage`). @default 512 MiB */
  maxMemoryBytes: number;
}

export const DEFAULT_QUERY_LIMITS: Readonly<QueryLimits & { maxRows: number }> = {
  timeoutMs: 30_000,
  maxRows: 100_000,
  maxMemoryBytes: 512 * 1024 * 1024,
};

/** Upper bounds, so a limit given to the gateway cannot switch the limits off. */
export const MAX_QUERY_TIMEOUT_MS = 24 * 3_600_000;
export const MAX_QUERY_ROWS = 10_000_000;

/** `--timeout`: `30s`, `500ms`, `2m`; a bare number is seconds. */
export function parseQueryTimeout(text: string): number {
  const trimmed = text.trim();
  const ms = /^\d+(\.\d+)?$/.test(trimmed) ? parseDurationMs(`${trimmed}s`) : parseDurationMs(trimmed);
  if (ms === undefined || ms > MAX_QUERY_TIMEOUT_MS) {
    throw new UsageError(`--timeout: expected a duration up to 24h such as 30s, 500ms or 2m, got "${text}"`);
  }
  return ms;
}

/** `--max-rows`: a whole number from 1 to 10,000,000. */
export function parseMaxRows(text: string): number {
  const rows = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!Number.isSafeInteger(rows) || rows < 1 || rows > MAX_QUERY_ROWS) {
    throw new UsageError(`--max-rows: expected a whole number from 1 to ${MAX_QUERY_ROWS}, got "${text}"`);
  }
  return rows;
}

/**
 * The engine settings that carry the limits. `max_result_rows` is one more than asked, with
 * `break`: the engine stops reading once it has more than `maxRows` rows (a block at most past
 * it), so "more rows came back than asked" means "the result was cut". No cap is 0, the engine's
 * "unlimited".
 */
export function limitSettings(limits: QueryLimits): Record<string, string | number> {
  return {
    max_execution_time: limits.timeoutMs / 1000,
    timeout_overflow_mode: 'throw',
    max_result_rows: limits.maxRows === null ? 0 : limits.maxRows + 1,
    result_overflow_mode: 'break',
    max_memory_usage: limits.maxMemoryBytes,
  };
}

export function formatTimeout(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
