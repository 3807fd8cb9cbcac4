/**
 * Every analytics dataset exported through the real queue into the embedded warehouse, compared
 * with the emulator's ground truth: rows in no promised order (shuffled), approximate counts,
 * fields beyond the schema, invalid text and transient faults in the upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toWellFormed } from '../../src/api/repair-text.js';
import type { DatasetName } from '../../src/datasets/index.js';
import { openExportStack, type ExportStack } from '../support/export-stack.js';
import { itEmbeddedOnly } from '../support/engine.js';

const PROJECT = 'every-dataset';
let stack: ExportStack;

beforeAll(async () => {
  stack = await openExportStack({
    emulator: { shuffle: true, approximateCounts: 0.05, extraFields: true, invalidText: 0.01 },
    // Under a budget nothing is fetched ahead, so every request is a page that is loaded.
    env: { MINTPIPE_ASSISTANT_THREADS: PROJECT, MINTPIPE_BATCH_ROWS: '250', MINTPIPE_ANALYTICS_RATE: '100000/1h' },
  });
});
afterAll(async () => {
  await stack?.close();
});

/** Text as stored: a lone surrogate becomes U+FFFD. */
const text = (value: unknown) => (typeof value === 'string' ? toWellFormed(value) : value);
const count = (value: number) => Math.round(value);
const stamp = (value: string | null | undefined) => (value ? new Date(value).toISOString().replace('T', ' ').replace('Z', '') : null);
const byKey = (key: string) => (a: Record<string, unknown>, b: Record<string, unknown>) => String(a[key]).localeCompare(String(b[key]));
/** Counts come back as numbers (embedded) or strings (server); compare as numbers. */
function normalize(rows: Record<string, unknown>[], numeric: string[]): Record<string, unknown>[] {
  return rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, numeric.includes(k) ? Number(v) : v])));
}

async function view(sql: string, numeric: string[] = []) {
  return normalize(await stack.rows(sql), numeric);
}

function where(w: { dateFrom: string; dateTo: string }) {
  return `project_id = '${PROJECT}' AND date_from = '${w.dateFrom}' AND date_to = '${w.dateTo}'`;
}

async function exportAll(w: { dateFrom: string; dateTo: string }, datasets: DatasetName[]) {
  const results = await stack.exportWindows(datasets.map((dataset) => ({ dataset, projectId: PROJECT, ...w })));
  expect(results.map((r) => `${r.state} ${r.failedReason ?? ''}`.trim())).toEqual(datasets.map(() => 'completed'));
}

async function expectWindowExact(w: { dateFrom: string; dateTo: string }) {
  const truth = <D extends DatasetName>(d: D) => stack.emulator.control.truth(d, PROJECT, w.dateFrom, w.dateTo);

  for (const [dataset, rowsView, totalsView] of [
    ['visitors', 'visitors', 'visitor_totals'],
    ['views', 'page_views', 'page_view_totals'],
  ] as const) {
    const t = truth(dataset);
    const expected = t.items.map((r) => ({ path: text(r.path), human: count(r.human), ai: count(r.ai), total: count(r.total) })).sort(byKey('path'));
    expect(await view(`SELECT path, human, ai, total FROM ${rowsView} WHERE ${where(w)} ORDER BY path`, ['human', 'ai', 'total'])).toEqual(expected);
    expect(await view(`SELECT human, ai, total FROM ${totalsView} WHERE ${where(w)}`, ['human', 'ai', 'total'])).toEqual([
      { human: count(t.totals.human), ai: count(t.totals.ai), total: count(t.totals.total) },
    ]);
  }

  const feedback = truth('feedback').items.map((f) => ({
    id: f.id,
    path: text(f.path),
    source: f.source,
    status: f.status,
    comment: text(f.comment),
    created_at: stamp(f.createdAt),
    helpful: typeof f.helpful === 'boolean' ? f.helpful : null,
    contact: text(f.contact ?? null),
    code: f.code === undefined ? null : text(f.code),
    filename: text(f.filename ?? null),
    lang: text(f.lang ?? null),
  }));
  expect(
    await view(`SELECT id, path, source, status, comment, created_at, helpful, contact, code, filename, lang FROM feedback WHERE ${where(w)} ORDER BY id`),
  ).toEqual(feedback.sort(byKey('id')));

  const byPage = truth('feedback-by-page').items;
  expect(byPage.length).toBeLessThanOrEqual(100); // one call of limit 100 sees them all
  expect(await view(`SELECT path, thumbs_up, thumbs_down, code, total FROM feedback_by_page WHERE ${where(w)} ORDER BY path`, ['thumbs_up', 'thumbs_down', 'code', 'total'])).toEqual(
    byPage
      .map((r) => ({ path: text(r.path), thumbs_up: count(r.thumbsUp), thumbs_down: count(r.thumbsDown), code: count(r.code), total: count(r.total) }))
      .sort(byKey('path')),
  );

  const conversations = truth('assistant').items;
  expect(
    await view(
      `SELECT id, timestamp, query, response, response_type, resolution_status, query_category, page_url, sources FROM assistant_conversations WHERE ${where(w)} ORDER BY id`,
    ),
  ).toEqual(
    conversations
      .map((c) => ({
        id: c.id,
        timestamp: stamp(c.timestamp),
        query: text(c.query),
        response: text(c.response),
        response_type: c.responseType ?? 'answer',
        resolution_status: c.resolutionStatus,
        query_category: text(c.queryCategory),
        page_url: text(c.pageUrl),
        sources: c.sources.map((s) => ({ title: text(s.title), url: text(s.url) })),
      }))
      .sort(byKey('id')),
  );

  const stats = truth('assistant-caller-stats').totals;
  expect(await view(`SELECT web, api, other, total FROM assistant_caller_stats WHERE ${where(w)}`, ['web', 'api', 'other', 'total'])).toEqual([
    { web: count(stats.web), api: count(stats.api), other: count(stats.other), total: count(stats.total) },
  ]);

  const searches = truth('searches');
  expect(
    await view(`SELECT search_query, hits, ctr, top_clicked_page, last_searched_at FROM searches WHERE ${where(w)} ORDER BY search_query`, ['hits', 'ctr']),
  ).toEqual(
    searches.items
      .map((s) => ({ search_query: text(s.searchQuery), hits: count(s.hits), ctr: s.ctr, top_clicked_page: text(s.topClickedPage), last_searched_at: stamp(s.lastSearchedAt) }))
      .sort(byKey('search_query')),
  );
  expect(await view(`SELECT total_searches FROM search_totals WHERE ${where(w)}`, ['total_searches'])).toEqual([{ total_searches: count(searches.totals.totalSearches) }]);

  const messages = truth('assistant-threads').items.flatMap((thread) =>
    thread.messages.map((m) => ({ thread_id: thread.threadId, message_id: m.id, role: m.role, content: text(m.content), created_at: stamp(m.createdAt) })),
  );
  expect(messages.length).toBeGreaterThan(0);
  expect(await view(`SELECT thread_id, message_id, role, content, created_at FROM assistant_messages WHERE ${where(w)} ORDER BY thread_id, message_id`)).toEqual(
    messages.sort((a, b) => a.thread_id.localeCompare(b.thread_id) || a.message_id.localeCompare(b.message_id)),
  );
}

const ALL: DatasetName[] = ['visitors', 'views', 'feedback', 'feedback-by-page', 'assistant', 'assistant-caller-stats', 'searches', 'assistant-threads'];

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

  it('records approximate counts and repaired text in data_quality, and keeps fields beyond the schema in extra', async () => {
    const findings = await view(`SELECT dataset, kind, count() AS n FROM data_quality WHERE project_id = '${PROJECT}' GROUP BY dataset, kind ORDER BY dataset, kind`, ['n']);
    const kinds = new Set(findings.map((f) => f.kind));
    expect(kinds).toContain('total_out_of_bounds');
    expect(kinds).toContain('fractional_count');
    expect(kinds).toContain('invalid_text');
    const extra = await view(`SELECT count() AS n FROM assistant_conversation_rows WHERE project_id = '${PROJECT}' AND JSONExtractString(extra, 'conversationId') != ''`, ['n']);
    expect(extra[0]?.n).toBeGreaterThan(0);
  });
});
