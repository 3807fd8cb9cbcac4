import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/export/dates.js';
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
