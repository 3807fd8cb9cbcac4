import { describe, expect, it } from 'vitest';
import { addDays, isValidDay } from '../../src/export/dates.js';
import { MAX_RANGE_DAYS, parseDateRange } from '../../src/export/date-range.js';
import { UsageError } from '../../src/errors.js';

describe('the longest date range', () => {
  const from = '2020-01-01';

  it(`accepts a range of exactly ${MAX_RANGE_DAYS} days`, () => {
    const to = addDays(from, MAX_RANGE_DAYS);
    expect(parseDateRange(from, to)).toEqual({ from, to });
  });

  it('refuses one day more with a usage error naming --to and both numbers', () => {
    const to = addDays(from, MAX_RANGE_DAYS + 1);
    expect(() => parseDateRange(from, to)).toThrow(UsageError);
    expect(() => parseDateRange(from, to)).toThrow(`--to: range of ${MAX_RANGE_DAYS + 1} days is longer than ${MAX_RANGE_DAYS}`);
  });
});

describe('the earliest day', () => {
  it('accepts a range that starts on 2000-01-01, the first day a window job takes', () => {
    expect(parseDateRange('2000-01-01', '2000-01-02')).toEqual({ from: '2000-01-01', to: '2000-01-02' });
    expect(isValidDay('2000-01-01')).toBe(true);
  });

  it('refuses an earlier --from up front, naming it (the windows would be enqueued, then each fail as invalid job data)', () => {
    for (const from of ['1999-12-31', '1969-12-31', '1900-02-28']) {
      expect(isValidDay(from)).toBe(false);
      expect(() => parseDateRange(from, '2000-01-02')).toThrow(UsageError);
      expect(() => parseDateRange(from, '2000-01-02')).toThrow(`--from: ${from} is before 2000-01-01: there are no analytics that old`);
    }
  });
});
