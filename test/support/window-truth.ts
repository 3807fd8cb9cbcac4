/**
 * Whether the warehouse's public views hold exactly what the emulator serves for one window of a
 * project: the comparison the export tests share (rows in no promised order, counts compared as
 * numbers, text as stored).
 */
import { expect } from 'vitest';
import { toWellFormed } from '../../src/api/repair-text.js';
import type { DatasetName } from '../../src/datasets/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';

export const ALL_DATASETS: readonly DatasetName[] = ['visitors', 'views', 'feedback', 'feedback-by-page', 'assistant', 'assistant-caller-stats', 'searches', 'assistant-threads'];

export interface WindowCheck {
  emulator: RunningEmulator;
  /** Rows of a SELECT on the warehouse. */
  rows(sql: string): Promise<Record<string, unknown>[]>;
  project: string;
  /** Datasets to compare. @default ALL_DATASETS */
  datasets?: readonly DatasetName[];
}

/** Text as stored: a lone surrogate becomes U+FFFD. */
const text = (value: unknown) => (typeof value === 'string' ? toWellFormed(value) : value);
const count = (value: number) => Math.round(value);
const stamp = (value: string | null | undefined) => (value ? new Date(value).toISOString().replace('T', ' ').replace('Z', '') : null);
const byKey = (key: string) => (a: Record<string, unknown>, b: Record<string, unknown>) => String(a[key]).localeCompare(String(b[key]));
/** Counts come back as numbers (embedded) or strings (server); compare as numbers. */
function normalize(rows: Record<string, unknown>[], numeric: string[]): Record<string, unknown>[] {
  return rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, numeric.includes(k) ? Number(v) : v])));
}

export async function expectWindowExact(check: WindowCheck, w: { dateFrom: string; dateTo: string }): Promise<void> {
  const { emulator, project } = check;
  const checks = new Set<DatasetName>(check.datasets ?? ALL_DATASETS);
  const view = async (sql: string, numeric: string[] = []) => normalize(await check.rows(sql), numeric);
  const where = (v: { dateFrom: string; dateTo: string }) => `project_id = '${project}' AND date_from = '${v.dateFrom}' AND date_to = '${v.dateTo}'`;
  const truth = <D extends DatasetName>(d: D) => emulator.control.truth(d, project, w.dateFrom, w.dateTo);

  for (const [dataset, rowsView, totalsView] of [
    ['visitors', 'visitors', 'visitor_totals'],
    ['views', 'page_views', 'page_view_totals'],
  ] as const) {
    if (!checks.has(dataset)) continue;
    const t = truth(dataset);
    const expected = t.items.map((r) => ({ path: text(r.path), human: count(r.human), ai: count(r.ai), total: count(r.total) })).sort(byKey('path'));
    expect(await view(`SELECT path, human, ai, total FROM ${rowsView} WHERE ${where(w)} ORDER BY path`, ['human', 'ai', 'total'])).toEqual(expected);
    expect(await view(`SELECT human, ai, total FROM ${totalsView} WHERE ${where(w)}`, ['human', 'ai', 'total'])).toEqual([
      { human: count(t.totals.human), ai: count(t.totals.ai), total: count(t.totals.total) },
    ]);
  }

  if (checks.has('feedback')) {
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
  }

  if (checks.has('feedback-by-page')) {
    const byPage = truth('feedback-by-page').items;
    expect(byPage.length).toBeLessThanOrEqual(100); // one call of limit 100 sees them all
    expect(await view(`SELECT path, thumbs_up, thumbs_down, code, total FROM feedback_by_page WHERE ${where(w)} ORDER BY path`, ['thumbs_up', 'thumbs_down', 'code', 'total'])).toEqual(
      byPage
        .map((r) => ({ path: text(r.path), thumbs_up: count(r.thumbsUp), thumbs_down: count(r.thumbsDown), code: count(r.code), total: count(r.total) }))
        .sort(byKey('path')),
    );
  }

  if (checks.has('assistant')) {
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
  }

  if (checks.has('assistant-caller-stats')) {
    const stats = truth('assistant-caller-stats').totals;
    expect(await view(`SELECT web, api, other, total FROM assistant_caller_stats WHERE ${where(w)}`, ['web', 'api', 'other', 'total'])).toEqual([
      { web: count(stats.web), api: count(stats.api), other: count(stats.other), total: count(stats.total) },
    ]);
  }

  if (checks.has('searches')) {
    const searches = truth('searches');
    expect(
      await view(`SELECT search_query, hits, ctr, top_clicked_page, last_searched_at FROM searches WHERE ${where(w)} ORDER BY search_query`, ['hits', 'ctr']),
    ).toEqual(
      searches.items
        .map((s) => ({ search_query: text(s.searchQuery), hits: count(s.hits), ctr: s.ctr, top_clicked_page: text(s.topClickedPage), last_searched_at: stamp(s.lastSearchedAt) }))
        .sort(byKey('search_query')),
    );
    expect(await view(`SELECT total_searches FROM search_totals WHERE ${where(w)}`, ['total_searches'])).toEqual([{ total_searches: count(searches.totals.totalSearches) }]);
  }

  if (checks.has('assistant-threads')) {
    const messages = truth('assistant-threads').items.flatMap((thread) =>
      thread.messages.map((m) => ({ thread_id: thread.threadId, message_id: m.id, role: m.role, content: text(m.content), created_at: stamp(m.createdAt) })),
    );
    expect(messages.length).toBeGreaterThan(0);
    expect(await view(`SELECT thread_id, message_id, role, content, created_at FROM assistant_messages WHERE ${where(w)} ORDER BY thread_id, message_id`)).toEqual(
      messages.sort((a, b) => a.thread_id.localeCompare(b.thread_id) || a.message_id.localeCompare(b.message_id)),
    );
  }
}
