/**
 * Like the real API, the emulator has no analytics for days that have not happened: a window that
 * starts after today (UTC, by the emulator's clock) has no rows in any dataset, while today's
 * window has them. Its ground truth (analyticsTruth) says the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsTruth, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';

const NOW_MS = Date.parse('2026-11-27T18:30:00Z');
const now = () => NOW_MS;
const ITEM_FIELDS = { visitors: 'visitors', views: 'views', feedback: 'feedback', 'feedback/by-page': 'feedback', assistant: 'conversations', searches: 'searches' } as const;

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, now });
});
afterAll(async () => {
  await emulator?.close();
});

async function get(path: string, dateFrom: string, dateTo: string): Promise<Record<string, unknown>> {
  const url = `${emulator.url}/v1/analytics/docs/${path}?dateFrom=${dateFrom}&dateTo=${dateTo}`;
  const response = await fetch(url, { headers: { authorization: 'Bearer mint_future_days' } });
  expect(response.status, path).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe('emulator analytics of days after today', () => {
  it('serves no rows in any dataset for a window that starts tomorrow, and rows for today', async () => {
    for (const [path, field] of Object.entries(ITEM_FIELDS)) {
      const tomorrow = await get(path, '2026-11-28', '2026-11-29');
      expect({ path, rows: (tomorrow[field] as unknown[]).length }).toEqual({ path, rows: 0 });
      const today = await get(path, '2026-11-27', '2026-11-28');
      expect({ path, some: (today[field] as unknown[]).length > 0 }).toEqual({ path, some: true });
    }
    expect(await get('visitors', '2026-11-28T00:00:00Z', '2026-12-05')).toMatchObject({ visitors: [], totals: { human: 0, ai: 0, total: 0 }, hasMore: false });
    expect(await get('assistant/caller-stats', '2026-11-30', '2026-12-01')).toMatchObject({ total: 0 });
  });

  it('gives the same empty ground truth for those days', () => {
    expect(analyticsTruth({ now }, 'visitors', 'docs', '2026-11-28', '2026-11-29')).toEqual({ items: [], totals: { human: 0, ai: 0, total: 0 } });
    expect(analyticsTruth({ now }, 'feedback', 'docs', '2026-11-28', '2026-11-29').items).toEqual([]);
    expect(analyticsTruth({ now }, 'visitors', 'docs', '2026-11-27', '2026-11-28').items.length).toBeGreaterThan(0);
  });
});
