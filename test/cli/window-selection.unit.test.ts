import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { UsageError } from '../../src/errors.js';
import { selectWindows } from '../../src/cli/window-selection.js';

const config = loadConfig({});
const TODAY = '2026-11-27';
const select = (from: string, to: string, grain = 'day') => selectWindows({ project: ['docs'], from, to, grain }, config, { today: TODAY });

describe('the windows a command names, against today', () => {
  it('takes windows up to and including today (--to is exclusive: tomorrow ends with today)', () => {
    expect(select('2026-11-26', '2026-11-28').map((w) => w.dateFrom)).toEqual(['2026-11-26', '2026-11-27']);
    // One window that contains today and days after it starts today: allowed.
    expect(select('2026-11-20', '2026-11-30', 'range')).toEqual([expect.objectContaining({ dateFrom: '2026-11-20', dateTo: '2026-11-30' })]);
  });

  it('refuses a range that starts after today, naming --from', () => {
    expect(() => select('2026-11-28', '2026-11-30')).toThrow(new UsageError('--from: 2026-11-28 is after today (2026-11-27, UTC): no analytics exist for it yet'));
  });

  it('refuses a range whose later windows start after today, naming --to and the first such window', () => {
    expect(() => select('2026-11-26', '2026-11-30')).toThrow(
      new UsageError('--to: the window 2026-11-28..2026-11-29 starts after today (2026-11-27, UTC): no analytics exist for it yet (--to 2026-11-28 ends with today)'),
    );
    expect(() => select('2026-11-20', '2026-12-08', 'week')).toThrow(/^--to: the window 2026-11-30\.\.2026-12-07 starts after today/);
  });
});
