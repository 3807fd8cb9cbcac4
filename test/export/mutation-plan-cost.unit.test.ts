/**
 * Plan cost, the cases StrykerJS showed no test held (`npm run mutation`): how the estimate scales
 * and where it is floored, and the table people read before an export starts.
 */
import { describe, expect, it } from 'vitest';
import type { DatasetName } from '../../src/datasets/index.js';
import { formatPlanCost, planCost, runSampleKey } from '../../src/export/plan-cost.js';

const w = (dataset: DatasetName, dateFrom: string, dateTo: string) => ({ dataset, projectId: 'p', dateFrom, dateTo });
const estimate = (windows: ReturnType<typeof w>[], samples: [DatasetName, { pages: number; days: number }][] = []) =>
  planCost(windows, new Map(samples.map(([d, s]) => [runSampleKey('p', d), s])), null).datasets.map((d) => d.estimatedRequests);

describe('plan cost, edge by edge', () => {
  it('scales the last run by the days per run it covered, and a guess by the days of the window', () => {
    expect(estimate([w('visitors', '2026-10-01', '2026-10-05')], [['visitors', { pages: 30, days: 2 }]])).toEqual([60]);
    expect(estimate([w('views', '2026-10-01', '2026-10-03')])).toEqual([10]);
  });

  it('counts one call per window for a single-call dataset, however long the window and whatever its last run cost', () => {
    expect(estimate([w('assistant-caller-stats', '2026-10-01', '2026-10-08')], [['assistant-caller-stats', { pages: 9, days: 1 }]])).toEqual([1]);
  });

  it('estimates at least one request per window, and none for a fanout whose last run fetched nothing', () => {
    expect(estimate([w('visitors', '2026-10-01', '2026-10-02'), w('visitors', '2026-10-02', '2026-10-03')], [['visitors', { pages: 0, days: 1 }]])).toEqual([2]);
    expect(estimate([w('assistant-threads', '2026-10-01', '2026-10-02')], [['assistant-threads', { pages: 0, days: 1 }]])).toEqual([0]);
    // A window of no days: the guess scales to nothing, the floor still holds.
    expect(estimate([w('visitors', '2026-10-01', '2026-10-01')])).toEqual([1]);
    expect(estimate([w('assistant-threads', '2026-10-01', '2026-10-01')])).toEqual([0]);
  });

  it('ignores a last run that covered no days and guesses instead', () => {
    expect(estimate([w('visitors', '2026-10-01', '2026-10-02')], [['visitors', { pages: 40, days: 0 }]])).toEqual([5]);
  });

  it('prints one aligned row per dataset, a total, and what the estimate takes at the budget', () => {
    const cost = planCost(
      [w('visitors', '2026-10-01', '2026-10-03'), w('assistant-caller-stats', '2026-10-01', '2026-10-08'), w('assistant-threads', '2026-10-01', '2026-10-02')],
      new Map([[runSampleKey('p', 'visitors'), { pages: 30, days: 2 }]]),
      { limit: 100, windowMs: 3_600_000 },
    );
    expect(formatPlanCost(cost)).toBe(
      [
        'dataset                 windows  least requests  estimated requests  budget time  estimate from',
        'visitors                      1               1                  30        0.3 h  last complete run',
        'assistant-caller-stats        1               1                   1        0.0 h  one call per window',
        'assistant-threads             1               0                 100        1.0 h  guess',
        'total                         3               2                 131        1.3 h',
        '',
        '131 requests (at least 2) take about 1.3 h at 100 requests per hour (MINTPIPE_ANALYTICS_RATE), shared by every dataset and project',
      ].join('\n'),
    );
  });

  it('prints "budget off" in the time column when the budget is off', () => {
    const lines = formatPlanCost(planCost([w('views', '2026-10-01', '2026-10-02')], new Map(), null)).split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'dataset  windows  least requests  estimated requests  budget time  estimate from',
      'views          1               1                   5   budget off  guess',
      'total          1               1                   5   budget off',
    ]);
  });
});
