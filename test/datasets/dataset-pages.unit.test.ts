/**
 * Three declarations read a page and map its rows as served: the page's schema refuses a body
 * without a field it needs, `page` says what the page holds and whether more follow, and `row`
 * names each count it rounds (a finding) and keeps unknown fields in `extra`.
 */
import { describe, expect, it } from 'vitest';
import { FindingLog, getDataset, RowContext } from '../../src/datasets/index.js';

function context() {
  const log = new FindingLog();
  return { log, ctx: new RowContext(log, 'keep') };
}

/** Parses `body` with the dataset's schema, then reads the page and maps its rows. */
function read(name: Parameters<typeof getDataset>[0], body: unknown) {
  const dataset = getDataset(name);
  const { log, ctx } = context();
  const parsed = dataset.schema.safeParse(body);
  if (!parsed.success) throw new Error(`refused: ${parsed.error.message}`);
  const page = dataset.page(parsed.data, ctx);
  const rows = page.items.map((item) => dataset.row(item, ctx));
  return { page, rows, findings: log.drain().map((f) => `${f.kind} ${f.detail}`) };
}

function refuses(name: Parameters<typeof getDataset>[0], body: unknown): boolean {
  return !getDataset(name).schema.safeParse(body).success;
}

describe('searches', () => {
  const term = { searchQuery: 'install', hits: 2.5, ctr: 0.4, topClickedPage: null, lastSearchedAt: '2026-11-01T10:00:00Z' };

  it('maps a term, rounding its hits under its name and keeping unknown fields, and reads the totals and cursor', () => {
    const { page, rows, findings } = read('searches', { searches: [{ ...term, rank: 1 }], totalSearches: 7.5, nextCursor: 'c2' });
    expect(page).toMatchObject({ hasMore: true, nextCursor: 'c2', totals: { total_searches: 8 } });
    expect(rows).toEqual([{ search_query: 'install', hits: 3, ctr: 0.4, top_clicked_page: null, last_searched_at: '2026-11-01 10:00:00.000', extra: '{"rank":1}' }]);
    expect(findings).toEqual(['fractional_count totalSearches: 7.5 stored as 8', 'fractional_count search "install" hits: 2.5 stored as 3']);
  });

  it('has no more pages when the cursor is null, and an unreadable time is named with its term', () => {
    const { page, findings } = read('searches', { searches: [{ ...term, hits: 1, lastSearchedAt: 'soon' }], totalSearches: 1, nextCursor: null });
    expect(page.hasMore).toBe(false);
    expect(findings).toEqual([expect.stringMatching(/^\S+ search "install" lastSearchedAt: /)]);
  });

  it('refuses a page or a term without a field it needs', () => {
    expect(refuses('searches', { searches: [], totalSearches: 1 })).toBe(true);
    expect(refuses('searches', { searches: [], nextCursor: null })).toBe(true);
    for (const field of Object.keys(term)) {
      const { [field]: _, ...rest } = term as Record<string, unknown>;
      expect(refuses('searches', { searches: [rest], totalSearches: 1, nextCursor: null })).toBe(true);
    }
    expect(refuses('searches', { searches: [term], totalSearches: -1, nextCursor: null })).toBe(true);
  });
});

describe('assistant caller stats', () => {
  const stats = { web: 1.5, api: 2.5, other: 3.5, total: 7.5 };

  it('is one row, the whole body, each count rounded under its name, unknown fields kept', () => {
    const { page, rows, findings } = read('assistant-caller-stats', { ...stats, cli: 4 });
    expect(page.hasMore).toBe(false);
    expect(page.items).toHaveLength(1);
    expect(rows).toEqual([{ web: 2, api: 3, other: 4, total: 8, extra: '{"cli":4}' }]);
    expect(findings).toEqual(['fractional_count web: 1.5 stored as 2', 'fractional_count api: 2.5 stored as 3', 'fractional_count other: 3.5 stored as 4', 'fractional_count total: 7.5 stored as 8']);
  });

  it('refuses a body without a count, or with a negative one, naming the value', () => {
    for (const field of Object.keys(stats)) {
      const { [field]: _, ...rest } = stats as Record<string, unknown>;
      expect(refuses('assistant-caller-stats', rest)).toBe(true);
    }
    const negative = getDataset('assistant-caller-stats').schema.safeParse({ ...stats, web: -2 });
    expect(negative.success).toBe(false);
    expect(negative.error?.issues[0]?.message).toBe('-2 is negative');
  });
});

describe('feedback by page', () => {
  const page = { path: '/a', thumbsUp: 1.5, thumbsDown: 2, code: 3, total: 6.5 };

  it('maps a page\'s feedback, rounding counts under the page\'s path, unknown fields kept, and says whether more follow', () => {
    const { page: view, rows, findings } = read('feedback-by-page', { feedback: [{ ...page, title: 'A' }], hasMore: true });
    expect(view.hasMore).toBe(true);
    expect(rows).toEqual([{ path: '/a', thumbs_up: 2, thumbs_down: 2, code: 3, total: 7, extra: '{"title":"A"}' }]);
    expect(findings).toEqual(['fractional_count path "/a" thumbsUp: 1.5 stored as 2', 'fractional_count path "/a" total: 6.5 stored as 7']);
    expect(read('feedback-by-page', { feedback: [], hasMore: false }).page.hasMore).toBe(false);
  });

  it('names each count it rounds', () => {
    const { findings } = read('feedback-by-page', { feedback: [{ path: '/b', thumbsUp: 0, thumbsDown: 0.5, code: 0.5, total: 1 }], hasMore: false });
    expect(findings).toEqual(['fractional_count path "/b" thumbsDown: 0.5 stored as 1', 'fractional_count path "/b" code: 0.5 stored as 1']);
  });

  it('refuses a body or an item without a field it needs', () => {
    expect(refuses('feedback-by-page', { feedback: [] })).toBe(true);
    for (const field of Object.keys(page)) {
      const { [field]: _, ...rest } = page as Record<string, unknown>;
      expect(refuses('feedback-by-page', { feedback: [rest], hasMore: false })).toBe(true);
    }
  });
});
