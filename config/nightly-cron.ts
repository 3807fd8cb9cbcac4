/**
 * The nightly schedule's cron pattern, checked at config load with the parser BullMQ itself uses
 * (cron-parser), so a pattern that starts cleanly is one BullMQ accepts. mintpipe schedules work
 * at most once a minute: a seconds field (6 fields, or a macro such as `@secondly`) would enqueue
 * a night's exports every second, so it is refused rather than honoured.
 */
import { createRequire } from 'node:module';
import { ConfigError } from './config-error.js';

/** The default pattern: known good, so checking it never loads the cron parser (~35 ms per command). */
export const DEFAULT_NIGHTLY_CRON = '0 2 * * *';

const CRON_KEY = 'MINTPIPE_SCHEDULE_CRON';
const TZ_KEY = 'MINTPIPE_SCHEDULE_TZ';

/** Throws a ConfigError naming MINTPIPE_SCHEDULE_TZ unless `timeZone` is an IANA zone this Node knows. */
export function checkTimeZone(timeZone: string): string {
  // The default needs no check, and the first Intl formatter of a process costs ~25 ms.
  if (timeZone === 'UTC') return timeZone;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
  } catch {
    throw new ConfigError(TZ_KEY, `expected an IANA time zone like UTC or Europe/Berlin, got "${timeZone}"`);
  }
  return timeZone;
}

/** Returns `pattern` when it is a valid 5-field cron (or macro) that fires at most once a minute. */
export function checkNightlyCron(pattern: string, timeZone: string): string {
  const fields = pattern.trim().split(/\s+/);
  if (!pattern.trim().startsWith('@')) {
    if (fields.length === 6) {
      throw new ConfigError(CRON_KEY, `a seconds field is not allowed (mintpipe schedules at most once a minute); expected 5 fields (minute hour day month weekday) like "0 2 * * *", got "${pattern}"`);
    }
    if (fields.length !== 5) throw new ConfigError(CRON_KEY, `expected 5 fields (minute hour day month weekday) like "0 2 * * *", got "${pattern}"`);
  }
  if (pattern.trim() === DEFAULT_NIGHTLY_CRON) return DEFAULT_NIGHTLY_CRON;
  // Loaded only for a pattern someone set (CommonJS, so synchronously).
  const { CronExpressionParser } = createRequire(import.meta.url)('cron-parser') as typeof import('cron-parser');
  let seconds: readonly number[];
  try {
    const expression = CronExpressionParser.parse(pattern.trim(), { tz: timeZone });
    expression.next();
    seconds = expression.fields.second.values;
  } catch (err) {
    const reason = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    throw new ConfigError(CRON_KEY, `expected a cron pattern like "0 2 * * *" (${reason}), got "${pattern}"`);
  }
  // A 5-field pattern always has second = [0]; a macro may not (`@secondly`).
  if (seconds.length !== 1 || seconds[0] !== 0) {
    throw new ConfigError(CRON_KEY, `fires more than once a minute; expected at most once a minute like "0 2 * * *", got "${pattern}"`);
  }
  return pattern.trim();
}
