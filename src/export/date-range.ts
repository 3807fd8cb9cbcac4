/**
 * The date range of `--from` and `--to`, checked the same way by every command that takes one
 * (export, plan, export cancel): real dates from FIRST_DAY on, both or neither, `--to` after `--from` (it is
 * exclusive), and no longer than MAX_RANGE_DAYS. Each refusal is a UsageError naming the flag.
 */
import { UsageError } from '../errors.js';
import { daysBetween, FIRST_DAY, parseDay } from './dates.js';

/** Longest range `export` accepts in one command (a guard against typos like 2062). */
export const MAX_RANGE_DAYS = 3660;

/** `[from, to)`, days as `YYYY-MM-DD`. */
export interface DateRange {
  from: string;
  to: string;
}

/** The range given, or undefined when neither flag was; one without the other is refused. */
export function parseDateRange(fromText: string | undefined, toText: string | undefined): DateRange | undefined {
  if (fromText === undefined && toText === undefined) return undefined;
  if (fromText === undefined) throw new UsageError('--from: required with --to (YYYY-MM-DD)');
  if (toText === undefined) throw new UsageError('--to: required with --from (YYYY-MM-DD, exclusive)');
  const from = parseDay(fromText, '--from');
  if (from < FIRST_DAY) throw new UsageError(`--from: ${from} is before ${FIRST_DAY}: there are no analytics that old`);
  const to = parseDay(toText, '--to');
  if (to <= from) throw new UsageError(`--to: ${to} must be after --from ${from} (--to is exclusive)`);
  if (daysBetween(from, to) > MAX_RANGE_DAYS) throw new UsageError(`--to: range of ${daysBetween(from, to)} days is longer than ${MAX_RANGE_DAYS}`);
  return { from, to };
}

/** The range a command cannot do without. */
export function requireDateRange(fromText: string | undefined, toText: string | undefined): DateRange {
  if (!fromText) throw new UsageError('--from: required (YYYY-MM-DD)');
  if (!toText) throw new UsageError('--to: required (YYYY-MM-DD, exclusive)');
  return parseDateRange(fromText, toText)!;
}
