import { describe, expect, it } from 'vitest';
import type { DatasetName } from '../../src/datasets/index.js';
import { formatPlanCost, planCost, runSampleKey } from '../../src/export/plan-cost.js';

const days = (dataset: DatasetName, n: number) =>
  Array.from({ length: n }, (_, i) => ({ dataset, projectId: 'p', dateFrom: `2026-10-${String(i + 1).padStart(2, '0')}`, dateTo: `2026-10-${String(i + 2).padStart(2, '0')}` }));

describe('plan cost', () => {
  it('costs at least one request per window, estimates from the last complete run scaled by window length, and turns it into budget hours', () => {
    const windows = [...days('visitors', 10), { dataset: 'visitors' as const, projectId: 'p', dateFrom: '2026-10-01', dateTo: '2026-10-08' }];
    const cost = planCost(windows, new Map([[runSampleKey('p', 'visitors'), { pages: 4, days: 1 }]]), { limit: 100, windowMs: 3_600_000 });
    expect(cost.datasets).toEqual([{ dataset: 'visitors', windows: 11, leastRequests: 11, estimatedRequests: 10 * 4 + 7 * 4, basis: 'last complete run', hours: 0.68 }]);
    expect(cost.requestsPerHour).toBe(100);
  });

  it('counts one call per window for single-call datasets, guesses where no run is known, and needs no request for a fanout with nothing to fetch', () => {
    const cost = planCost([...days('assistant-caller-stats', 3), ...days('searches', 2), ...days('assistant-threads', 2)], new Map(), { limit: 10, windowMs: 60_000 });
    const by = Object.fromEntries(cost.datasets.map((d) => [d.dataset, d]));
    expect(by['assistant-caller-stats']).toMatchObject({ leastRequests: 3, estimatedRequests: 3, basis: 'one call per window' });
    expect(by.searches).toMatchObject({ leastRequests: 2, estimatedRequests: 6, basis: 'guess' });
    expect(by['assistant-threads']).toMatchObject({ leastRequests: 0, estimatedRequests: 200 });
    expect(cost.hours).toBeCloseTo(209 / 600);
  });

  it('says the budget is off instead of inventing hours', () => {
    const cost = planCost(days('views', 1), new Map(), null);
    expect(cost.hours).toBeNull();
    expect(formatPlanCost(cost)).toContain('the analytics budget is off');
    expect(formatPlanCost(planCost(days('views', 2), new Map(), { limit: 100, windowMs: 3_600_000 }))).toMatch(/10 requests \(at least 2\) take about 0\.1 h at 100 requests per hour/);
  });

  it('estimates each project from its own last complete run and says guess for a project without one', () => {
    const both = [...days('visitors', 2), ...days('visitors', 2).map((w) => ({ ...w, projectId: 'fresh' }))];
    const samples = new Map([[runSampleKey('p', 'visitors'), { pages: 3, days: 1 }]]);
    expect(planCost(both, samples, null).datasets[0]).toMatchObject({ estimatedRequests: 2 * 3 + 2 * 5, basis: 'last complete run and guess' });
    expect(planCost(days('visitors', 2).map((w) => ({ ...w, projectId: 'fresh' })), samples, null).datasets[0]).toMatchObject({ estimatedRequests: 10, basis: 'guess' });
  });

  it('rounds a scaled estimate up: a part of a page is still a request', () => {
    // 10 pages over a week is 1.43 pages a day: each one-day window needs 2 requests.
    const cost = planCost(days('visitors', 3), new Map([[runSampleKey('p', 'visitors'), { pages: 10, days: 7 }]]), null);
    expect(cost.datasets[0]).toMatchObject({ leastRequests: 3, estimatedRequests: 6, basis: 'last complete run' });
  });
});
