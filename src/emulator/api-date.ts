/**
 * The date parameters of the analytics API: ISO 8601 (`2026-01-01T00:00:00Z`, with an offset or
 * none = UTC) or `YYYY-MM-DD`. A date must exist on the calendar: `2026-02-30` is refused rather
 * than rolled over to March, as `Date.parse` would.
 */

const API_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Epoch milliseconds of an API date, or undefined when it is malformed or not a real date/time. */
export function parseApiDate(text: string): number | undefined {
  const match = API_DATE.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', zone = 'Z'] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const offsetMinutes = parseOffsetMinutes(zone!);
  if (offsetMinutes === undefined) return undefined;
  const ms = Number(fraction.padEnd(3, '0').slice(0, 3));
  return Date.UTC(year, month - 1, day, hour, minute, second, ms) - offsetMinutes * 60_000;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function parseOffsetMinutes(zone: string): number | undefined {
  if (zone === 'Z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2, 4));
  if (hours > 23 || minutes > 59) return undefined;
  return sign * (hours * 60 + minutes);
}
