/**
 * DateTime64(3, 'UTC') as text. Both engines accept and return `YYYY-MM-DD hh:mm:ss.sss` for these
 * columns, in the column's time zone (UTC), so the conversion never depends on a server's zone.
 */

/** `2024-05-01 12:00:00.000` (UTC) for a Date. */
export function toDateTime64(date: Date): string {
  return date.toISOString().replace('T', ' ').replace('Z', '');
}

/** The Date of a DateTime64(3, 'UTC') value as the engines return it. */
export function fromDateTime64(value: string): Date {
  return new Date(`${value.replace(' ', 'T')}Z`);
}

/** Like {@link fromDateTime64}, keeping NULL. */
export function fromNullableDateTime64(value: string | null): Date | null {
  return value === null ? null : fromDateTime64(value);
}
