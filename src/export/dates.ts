/** Calendar dates as `YYYY-MM-DD` strings (UTC), the unit of every export window. */
import { UsageError } from '../errors.js';

const DAY_MS = 86_400_000;

/** Parses a strict, real calendar date; throws UsageError naming `input`. */
export function parseDay(text: string, input: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  if (!match) throw new UsageError(`${input}: expected a date as YYYY-MM-DD, got "${text}"`);
  const [, y, m, d] = match.map(Number) as [number, number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) {
    throw new UsageError(`${input}: ${text} is not a real calendar date`);
  }
  return text.trim();
}

/** The first day of any analytics window: Mintlify has no analytics older (and years sort as text). */
export const FIRST_DAY = '2000-01-01';

/** True for a real calendar date `YYYY-MM-DD` in years 2000–2100 (anything else is no analytics window). */
export function isValidDay(text: string): boolean {
  try {
    const day = parseDay(text, 'date');
    const year = Number(day.slice(0, 4));
    return day === text && day >= FIRST_DAY && year <= 2100;
  } catch {
    return false;
  }
}

export function dayToMs(day: string): number {
  return Date.parse(`${day}T00:00:00Z`);
}

export function msToDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function addDays(day: string, days: number): string {
  return msToDay(dayToMs(day) + days * DAY_MS);
}

/** Days from `from` to `to` (exclusive). */
export function daysBetween(from: string, to: string): number {
  return Math.round((dayToMs(to) - dayToMs(from)) / DAY_MS);
}

/** ISO weekday, Monday = 1 … Sunday = 7. */
export function isoWeekday(day: string): number {
  return ((new Date(dayToMs(day)).getUTCDay() + 6) % 7) + 1;
}

/** The first day of `day`'s month. */
export function monthStart(day: string): string {
  return `${day.slice(0, 7)}-01`;
}

/** The first day of the month after `day`'s. */
export function nextMonthStart(day: string): string {
  const date = new Date(dayToMs(monthStart(day)));
  date.setUTCMonth(date.getUTCMonth() + 1);
  return msToDay(date.getTime());
}

/** The calendar date of `instant` in `timeZone` (an IANA name). */
export function dayInTimeZone(instant: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(instant);
  const get = (type: string) => parts.find((p) => p.type === type)?.value;
  return `${get('year')}-${get('month')}-${get('day')}`;
}
