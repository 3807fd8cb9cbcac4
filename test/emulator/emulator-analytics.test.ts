import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeWindow, startEmulator, type AnalyticsWindow, type RunningEmulator, type VisitorRow } from '../../src/emulator/index.js';

const KEY = { authorization: 'Bearer mint_test_key' };

interface Page extends AnalyticsWindow {
  hasMore: boolean;
}

let emulator: RunningEmulator;
let sameSeed: RunningEmulator;
let otherSeed: RunningEmulator;

beforeAll(async () => {
  [emulator, sameSeed, otherSeed] = await Promise.all([
    startEmulator({ port: 0 }),
    startEmulator({ port: 0, seed: 42 }),
    startEmulator({ port: 0, seed: 7 }),
  ]);
});

afterAll(async () => {
  await Promise.all([emulator?.close(), sameSeed?.close(), otherSeed?.close()]);
});

function visitorsUrl(base: string, projectId: string, query: Record<string, string | number>): string {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  return `${base}/v1/analytics/${projectId}/visitors?${search}`;
}

async function getPage(base: string, projectId: string, query: Record<string, string | number>): Promise<Page> {
  const response = await fetch(visitorsUrl(base, projectId, query), { headers: KEY });
  expect(response.status).toBe(200);
  return (await response.json()) as Page;
}

async function fetchWindow(base: string, projectId: string, dateFrom: string, dateTo: string): Promise<{ pages: Page[]; rows: VisitorRow[] }> {
  const pages: Page[] = [];
  for (let offset = 0; ; offset += 250) {
    const page = await getPage(base, projectId, { dateFrom, dateTo, limit: 250, offset });
    pages.push(page);
    if (!page.hasMore) break;
  }
  return { pages, rows: pages.flatMap((page) => page.visitors) };
}

function expectDeduplicated(counts: { human: number; ai: number; total: number }): void {
  expect(counts.total).toBeGreaterThanOrEqual(Math.max(counts.human, counts.ai));
  expect(counts.total).toBeLessThanOrEqual(counts.human + counts.ai);
}

async function validationDetails(query: Record<string, string | number>): Promise<string[]> {
  const response = await fetch(visitorsUrl(emulator.url, 'acme', query), { headers: KEY });
  expect(response.status).toBe(400);
  const body = (await response.json()) as { error: string; details: { message: string }[] };
  expect(body.error).toEqual(expect.any(String));
  return body.details.map((detail) => detail.message);
}

describe('emulator analytics: auth', () => {
  it('answers 401 with an error and no data when the Authorization header is missing', async () => {
    const response = await fetch(visitorsUrl(emulator.url, 'acme', { dateFrom: '2026-01-01', dateTo: '2026-01-02' }));
    expect(response.status).toBe(401);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body.error).toEqual(expect.any(String));
    expect(body.visitors).toBeUndefined();
  });

  it('answers 401 to a key without the mint_ prefix and to a non-bearer scheme', async () => {
    for (const authorization of ['Bearer sk_live_123', 'Basic mint_abc', 'mint_abc', 'Bearer ']) {
      const response = await fetch(visitorsUrl(emulator.url, 'acme', { dateFrom: '2026-01-01', dateTo: '2026-01-02' }), {
        headers: { authorization },
      });
      expect(response.status, authorization).toBe(401);
    }
  });

  it('accepts only the configured key when one is set, and never echoes a key back', async () => {
    const strict = await startEmulator({ port: 0, apiKey: 'mint_right' });
    try {
      const url = visitorsUrl(strict.url, 'acme', { dateFrom: '2026-01-01', dateTo: '2026-01-02' });
      const wrong = await fetch(url, { headers: { authorization: 'Bearer mint_wrong_secret' } });
      expect(wrong.status).toBe(401);
      expect(await wrong.text()).not.toContain('mint_wrong_secret');
      expect((await fetch(url, { headers: { authorization: 'Bearer mint_right' } })).status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});

describe('emulator analytics: validation', () => {
  const window = { dateFrom: '2026-01-01', dateTo: '2026-01-02' };

  it.each([
    ['0', 'limit'],
    ['251', 'limit'],
    ['abc', 'limit'],
    ['2.5', 'limit'],
  ])('refuses limit=%s with a detail naming limit', async (limit, name) => {
    const details = await validationDetails({ ...window, limit });
    expect(details.some((message) => message.includes(name))).toBe(true);
  });

  it('refuses a negative offset', async () => {
    const details = await validationDetails({ ...window, offset: -1 });
    expect(details).toEqual([expect.stringContaining('offset')]);
  });

  it('refuses dates that are not on the calendar (2026-02-30) or not dates at all', async () => {
    expect(await validationDetails({ dateFrom: '2026-02-30', dateTo: '2026-03-02' })).toEqual([expect.stringContaining('dateFrom')]);
    expect(await validationDetails({ dateFrom: '2026-01-01', dateTo: '2026-13-01' })).toEqual([expect.stringContaining('dateTo')]);
    expect(await validationDetails({ dateFrom: 'yesterday', dateTo: '2026-01-02' })).toEqual([expect.stringContaining('dateFrom')]);
    expect(await validationDetails({ dateFrom: '2026-01-01T25:00:00Z', dateTo: '2026-01-02' })).toHaveLength(1);
  });

  it('refuses a dateTo equal to or before dateFrom (dateTo is exclusive)', async () => {
    expect(await validationDetails({ dateFrom: '2026-01-02', dateTo: '2026-01-02' })).toEqual([expect.stringContaining('dateTo')]);
    expect(await validationDetails({ dateFrom: '2026-01-02', dateTo: '2026-01-01' })).toEqual([expect.stringContaining('dateTo')]);
  });

  it('reports every problem at once', async () => {
    const details = await validationDetails({ dateFrom: 'soon', dateTo: '2026-02-31', limit: 0 });
    expect(details).toEqual(
      expect.arrayContaining([expect.stringContaining('dateFrom'), expect.stringContaining('dateTo'), expect.stringContaining('limit')]),
    );
    expect(details).toHaveLength(3);
  });

  it('defaults to limit 50 and offset 0, and accepts ISO 8601 timestamps for the same window', async () => {
    const byDay = await getPage(emulator.url, 'acme', window);
    expect(byDay.visitors).toHaveLength(50);
    const byTimestamp = await getPage(emulator.url, 'acme', { dateFrom: '2026-01-01T00:00:00Z', dateTo: '2026-01-02T02:00:00+02:00' });
    expect(byTimestamp).toEqual(byDay);
  });
});

describe('emulator analytics: data', () => {
  it('pages through a window reproducing computeWindow exactly: no duplicate, no gap, stable order', async () => {
    const truth = computeWindow(42, 'acme', '2026-01-01', '2026-01-08');
    const { pages, rows } = await fetchWindow(emulator.url, 'acme', '2026-01-01', '2026-01-08');
    expect(truth.visitors.length).toBeGreaterThan(3000);
    expect(rows).toEqual(truth.visitors);
    expect(new Set(rows.map((row) => row.path)).size).toBe(rows.length);
    for (const page of pages) expect(page.totals).toEqual(truth.totals);
    expect(pages.at(-1)!.hasMore).toBe(false);
    expect(pages.slice(0, -1).every((page) => page.hasMore && page.visitors.length === 250)).toBe(true);
  });

  it('orders rows by total desc, then path asc, and looks like a docs site with a long tail', async () => {
    const { visitors } = computeWindow(42, 'acme', '2026-01-01', '2026-01-08');
    for (let i = 1; i < visitors.length; i++) {
      const [a, b] = [visitors[i - 1]!, visitors[i]!];
      expect(a.total > b.total || (a.total === b.total && a.path < b.path), `${a.path} before ${b.path}`).toBe(true);
    }
    expect(visitors.some((row) => row.path.startsWith('/guides/'))).toBe(true);
    expect(visitors.some((row) => row.path.startsWith('/api-reference/'))).toBe(true);
    expect(visitors.every((row) => /^\/[a-z0-9/-]+$/.test(row.path))).toBe(true);
    // Zipf-like: the top tenth of pages holds most of the traffic, and the tail is long but not empty.
    const sum = (rows: VisitorRow[]) => rows.reduce((acc, row) => acc + row.total, 0);
    expect(sum(visitors.slice(0, visitors.length / 10)) / sum(visitors)).toBeGreaterThan(0.5);
    expect(visitors.at(-1)!.total).toBeGreaterThan(0);
    expect(visitors.some((row) => row.ai > 0) && visitors.some((row) => row.human > row.ai)).toBe(true);
  });

  it('keeps max(human, ai) ≤ total ≤ human + ai on every row and on totals, with totals deduplicated across rows', () => {
    const { totals, visitors } = computeWindow(42, 'docs', '2026-03-01', '2026-04-01');
    visitors.forEach(expectDeduplicated);
    expectDeduplicated(totals);
    // total is genuinely deduplicated: usually below human + ai.
    expect(visitors.filter((row) => row.total < row.human + row.ai).length / visitors.length).toBeGreaterThan(0.8);
    expect(totals.total).toBeLessThan(totals.human + totals.ai);
    expect(totals.total).not.toBe(visitors.reduce((acc, row) => acc + row.total, 0));
    expect(totals.total).toBeGreaterThanOrEqual(Math.max(...visitors.map((row) => row.total)));
  });

  it('is not additive: a week has fewer uniques than the sum of its days', () => {
    const days = Array.from({ length: 7 }, (_, i) => computeWindow(42, 'acme', `2026-01-0${i + 1}`, `2026-01-0${i + 2}`));
    const week = computeWindow(42, 'acme', '2026-01-01', '2026-01-08');
    for (const field of ['human', 'ai', 'total'] as const) {
      expect(week.totals[field]).toBeLessThan(days.reduce((acc, day) => acc + day.totals[field], 0));
    }
    const intro = (window: AnalyticsWindow) => window.visitors.find((row) => row.path === '/introduction')!.total;
    expect(intro(week)).toBeLessThan(days.reduce((acc, day) => acc + intro(day), 0));
    // Longer windows see more of the tail.
    expect(week.visitors.length).toBeGreaterThan(days[0]!.visitors.length);
  });

  it('serves the same data from two emulators with the same seed, and different data with another seed', async () => {
    const query = { dateFrom: '2026-02-01', dateTo: '2026-02-08', limit: 250, offset: 250 };
    const [a, b, c] = await Promise.all([
      getPage(emulator.url, 'acme', query),
      getPage(sameSeed.url, 'acme', query),
      getPage(otherSeed.url, 'acme', query),
    ]);
    expect(b).toEqual(a);
    expect(c.totals).not.toEqual(a.totals);
    expect(c.visitors).not.toEqual(a.visitors);
  });

  it('gives each project its own data, and pathsFor or a numeric project suffix sets the path count', async () => {
    const other = computeWindow(42, 'globex', '2026-01-01', '2026-01-02');
    expect(other.totals).not.toEqual(computeWindow(42, 'acme', '2026-01-01', '2026-01-02').totals);
    expect(computeWindow(42, 'bench-777', '2026-01-01', '2026-01-02').visitors).toHaveLength(777);
    const custom = await startEmulator({ port: 0, pathsFor: (projectId) => (projectId === 'tiny' ? 3 : 10) });
    try {
      const page = await getPage(custom.url, 'tiny', { dateFrom: '2026-01-01', dateTo: '2026-01-02', limit: 250 });
      expect(page.visitors).toEqual(computeWindow(42, 'tiny', '2026-01-01', '2026-01-02', 3).visitors);
      expect(page.hasMore).toBe(false);
    } finally {
      await custom.close();
    }
  });

  it('answers an offset past the end with an empty last page', async () => {
    const page = await getPage(emulator.url, 'bench-300', { dateFrom: '2026-01-01', dateTo: '2026-01-02', limit: 250, offset: 300 });
    expect(page.visitors).toEqual([]);
    expect(page.hasMore).toBe(false);
    expect(page.totals.total).toBeGreaterThan(0);
  });

  it('shifts totals and order after control.mutate, so drift between pages is observable', async () => {
    const query = { dateFrom: '2026-05-01', dateTo: '2026-05-08', limit: 250 };
    const before = await getPage(emulator.url, 'drift', query);
    expect(emulator.control.mutate('drift')).toBe(1);
    const after = await getPage(emulator.url, 'drift', query);
    expect(after.totals).not.toEqual(before.totals);
    expect(after.visitors.map((row) => row.path)).not.toEqual(before.visitors.map((row) => row.path));
    expect(after.visitors).toEqual(computeWindow(42, 'drift', '2026-05-01', '2026-05-08', undefined, 1).visitors.slice(0, 250));
    expect(emulator.control.window('drift', '2026-05-01', '2026-05-08').totals).toEqual(after.totals);
  });
});

describe('emulator analytics: one window computed once', () => {
  it('computes a 100,000-path window once, then serves any page of it, and 16 at once, from that one computation', async () => {
    const bench = await startEmulator({ port: 0 });
    try {
      const query = { dateFrom: '2026-01-01', dateTo: '2026-01-02', limit: 250 };
      const first = await getPage(bench.url, 'bench-100000', { ...query, offset: 0 });
      for (const offset of [250, 50_000, 99_750, 75_000, 1000, 12_345, 99_000, 500]) {
        const page = await getPage(bench.url, 'bench-100000', { ...query, offset });
        expect(page.visitors).toHaveLength(250);
        expect(page.totals).toEqual(first.totals);
        expect(page.hasMore).toBe(offset + 250 < 100_000);
      }
      // 16 pages at once, as the benchmarks fetch them.
      const burst = await Promise.all(
        Array.from({ length: 16 }, (_, i) => getPage(bench.url, 'bench-100000', { ...query, offset: i * 250 })),
      );
      expect(new Set(burst.flatMap((page) => page.visitors.map((row) => row.path))).size).toBe(16 * 250);
      // Page speed is measured in `npm run bench`; here, that the window was computed only once.
      expect(bench.windowsComputed).toBe(1);
    } finally {
      await bench.close();
    }
  });
});
