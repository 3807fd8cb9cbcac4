/**
 * Every analytics dataset exported through the real queue into the embedded warehouse, compared
 * with the emulator's ground truth: rows in no promised order (shuffled), approximate counts,
 * fields beyond the schema, invalid text and transient faults in the upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatasetName } from '../../src/datasets/index.js';
import { openExportStack, type ExportStack } from '../support/export-stack.js';
import { ALL_DATASETS, expectWindowExact as expectExact } from '../support/window-truth.js';
import { itEmbeddedOnly } from '../support/engine.js';

const PROJECT = 'every-dataset';
let stack: ExportStack;

beforeAll(async () => {
  stack = await openExportStack({
    // Injected 429s say Retry-After: 0. The default 1 s paused the whole shared budget on each one;
    // the case proves exact loads through faults, and the pause is proven in export-pacing.test.ts.
    emulator: { shuffle: true, approximateCounts: 0.05, extraFields: true, invalidText: 0.01, retryAfterSeconds: 0 },
    // Under a budget nothing is fetched ahead, so every request is a page that is loaded.
    env: { MINTPIPE_ASSISTANT_THREADS: PROJECT, MINTPIPE_BATCH_ROWS: '250', MINTPIPE_ANALYTICS_RATE: '100000/1h' },
  });
});
afterAll(async () => {
  await stack?.close();
});

async function exportAll(w: { dateFrom: string; dateTo: string }, datasets: DatasetName[]) {
  const results = await stack.exportWindows(datasets.map((dataset) => ({ dataset, projectId: PROJECT, ...w })));
  expect(results.map((r) => `${r.state} ${r.failedReason ?? ''}`.trim())).toEqual(datasets.map(() => 'completed'));
}

const ALL = [...ALL_DATASETS];

/** Counts come back as numbers (embedded) or strings (server); compare as numbers. */
async function view(sql: string, numeric: string[] = []): Promise<Record<string, unknown>[]> {
  return (await stack.rows(sql)).map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, numeric.includes(k) ? Number(v) : v])));
}
const expectWindowExact = (w: { dateFrom: string; dateTo: string }) => expectExact({ emulator: stack.emulator, rows: (sql) => stack.rows(sql), project: PROJECT }, w);

describe('every analytics dataset', () => {
  it('loads a day window of every dataset exactly as the upstream serves it, under faults, shuffled rows, approximate counts and extra fields', async () => {
    const w = { dateFrom: '2026-10-01', dateTo: '2026-10-02' };
    stack.emulator.control.setFaults({ serverErrorRate: 0.1, rateLimitRate: 0.05, resetRate: 0.05 });
    try {
      await exportAll(w, ALL);
    } finally {
      stack.emulator.control.setFaults({});
    }
    await expectWindowExact(w);
    expect(stack.emulator.counters.faults.status + stack.emulator.counters.faults.reset).toBeGreaterThan(0);
  });

  itEmbeddedOnly('loads a whole range as one window of every dataset (not a sum of days)', async () => {
    const w = { dateFrom: '2026-10-03', dateTo: '2026-10-10' };
    await exportAll(w, ALL);
    await expectWindowExact(w);
  });

  itEmbeddedOnly('spends the fewest requests at each endpoint’s largest limit: one per page, one per single call, one per thread', async () => {
    const w = { dateFrom: '2026-10-12', dateTo: '2026-10-13' };
    const before = Object.fromEntries(ALL.map((d) => [d, stack.emulator.counters.routes[d].requests]));
    await exportAll(w, ALL);
    const pages = (items: number, limit: number) => Math.max(1, Math.ceil(items / limit));
    const truth = <D extends DatasetName>(d: D) => stack.emulator.control.truth(d, PROJECT, w.dateFrom, w.dateTo);
    const spent = Object.fromEntries(ALL.map((d) => [d, stack.emulator.counters.routes[d].requests - before[d]!]));
    expect(spent).toEqual({
      visitors: pages(truth('visitors').items.length, 250),
      views: pages(truth('views').items.length, 250),
      feedback: pages(truth('feedback').items.length, 100),
      'feedback-by-page': 1,
      assistant: pages(truth('assistant').items.length, 1000),
      'assistant-caller-stats': 1,
      searches: pages(truth('searches').items.length, 100),
      'assistant-threads': truth('assistant-threads').items.length,
    });
  });

  itEmbeddedOnly('records approximate counts and repaired text in data_quality, and keeps fields beyond the schema in extra', async () => {
    const findings = await view(`SELECT dataset, kind, count() AS n FROM data_quality WHERE project_id = '${PROJECT}' GROUP BY dataset, kind ORDER BY dataset, kind`, ['n']);
    const kinds = new Set(findings.map((f) => f.kind));
    expect(kinds).toContain('total_out_of_bounds');
    expect(kinds).toContain('fractional_count');
    expect(kinds).toContain('invalid_text');
    const extra = await view(`SELECT count() AS n FROM assistant_conversation_rows WHERE project_id = '${PROJECT}' AND JSONExtractString(extra, 'conversationId') != ''`, ['n']);
    expect(extra[0]?.n).toBeGreaterThan(0);
  });
});
