import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openExportStack, type ExportStack } from '../support/export-stack.js';

let stack: ExportStack;

beforeAll(async () => {
  // The upstream allows 10 analytics requests per 4 s (fixed windows); mintpipe paces at 10/4s.
  stack = await openExportStack({
    emulator: { analyticsRate: { limit: 10, windowMs: 4000 } },
    env: { MINTPIPE_ANALYTICS_RATE: '10/4s' },
  });
});
afterAll(async () => {
  await stack?.close();
});

describe('analytics budget', () => {
  it('exports a 36-page window with exactly 36 requests and no 429 when paced under the upstream limit', async () => {
    const project = 'paced-8900'; // 8,900 paths = 36 pages of 250
    const [result] = await stack.exportWindows([{ projectId: project, dateFrom: '2026-10-01', dateTo: '2026-10-02' }]);
    expect(result?.state).toBe('completed');
    expect(stack.emulator.counters.analyticsRequests).toBe(36);
    expect(stack.emulator.counters.analytics429).toBe(0);
    const count = await stack.rows(`SELECT count() AS n FROM visitors WHERE project_id = '${project}'`);
    expect(Number(count[0]?.n)).toBe(8900);
    expect((result?.returnvalue as { requests: number }).requests).toBe(36);
  });

  it('pauses every request of the budget after a 429 caused by someone else, then finishes exactly', async () => {
    const project = 'shared-1100';
    const before = stack.emulator.counters.analyticsRequests;
    stack.emulator.control.script('visitors', [{ kind: 'delay', ms: 0 }, { kind: 'rateLimit', retryAfterSeconds: 2 }]);
    const [result] = await stack.exportWindows([{ projectId: project, dateFrom: '2026-10-03', dateTo: '2026-10-04' }]);
    expect(result?.state).toBe('completed');
    // 5 pages + the one refused by the injected 429.
    expect(stack.emulator.counters.analyticsRequests - before).toBe(6);
    const truth = stack.emulator.control.window(project, '2026-10-03', '2026-10-04');
    const count = await stack.rows(`SELECT count() AS n FROM visitors WHERE project_id = '${project}'`);
    expect(Number(count[0]?.n)).toBe(truth.visitors.length);
  });

  it('paces two datasets exported at once within the one shared budget, with no 429 of its own making', async () => {
    const project = 'shared-2400'; // 2,400 paths and 2,400 page-view rows: 10 pages each
    const before = { requests: stack.emulator.counters.analyticsRequests, refused: stack.emulator.counters.analytics429 };
    const results = await stack.exportWindows([
      { dataset: 'visitors', projectId: project, dateFrom: '2026-10-05', dateTo: '2026-10-06' },
      { dataset: 'views', projectId: project, dateFrom: '2026-10-05', dateTo: '2026-10-06' },
    ]);
    expect(results.map((r) => r.state)).toEqual(['completed', 'completed']);
    expect(stack.emulator.counters.analyticsRequests - before.requests).toBe(20);
    expect(stack.emulator.counters.analytics429 - before.refused).toBe(0);
    const counts = await stack.rows(
      `SELECT (SELECT count() FROM visitors WHERE project_id = '${project}') AS visitors, (SELECT count() FROM page_views WHERE project_id = '${project}') AS views`,
    );
    expect(counts.map((c) => [Number(c.visitors), Number(c.views)])).toEqual([[2400, 2400]]);
  });
});
