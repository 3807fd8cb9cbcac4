/**
 * Three declarations read a page and map its rows as served: the page's schema refuses a body
 * without a field it needs, `page` says what the page holds and whether more follow, and `row`
 * names each count it rounds (a finding) and keeps unknown fields in `extra`.
 */
import { describe, expect, it } from 'vitest';
import { FindingLog, getDataset, RowContext } from '../../src/datasets/index.js';
import { schemaOf } from '../../src/datasets/dataset-schema.js';

function context() {
  const log = new FindingLog();
  return { log, ctx: new RowContext(log, 'keep') };
}

/** Parses `body` with the dataset's schema, then reads the page and maps its rows. */
function read(name: Parameters<typeof getDataset>[0], body: unknown) {
  const dataset = getDataset(name);
  const { log, ctx } = context();
  const parsed = schemaOf(dataset).safeParse(body);
  if (!parsed.success) throw new Error(`refused: ${parsed.error.message}`);
  const page = dataset.page(parsed.data, ctx);
  const rows = page.items.map((item) => dataset.row(item, ctx));
  return { page, rows, findings: log.drain().map((f) => `${f.kind} ${f.detail}`) };
}

function refuses(name: Parameters<typeof getDataset>[0], body: unknown): boolean {
  return !schemaOf(getDataset(name)).safeParse(body).success;
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
    const negative = schemaOf(getDataset('assistant-caller-stats')).safeParse({ ...stats, web: -2 });
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

describe('assistant threads', () => {
  const message = { id: 'm1', role: 'user', content: 'hi', createdAt: '2026-11-01T10:00:00Z' };

  it('turns a thread into one row per message, each carrying the thread id, unknown fields kept', () => {
    const { page, rows } = read('assistant-threads', { threadId: 't1', createdAt: '2026-11-01T09:00:00Z', messages: [{ ...message, tokens: 3 }, { ...message, id: 'm2', role: 'assistant' }] });
    expect(page.hasMore).toBe(false);
    expect(rows).toEqual([
      { thread_id: 't1', message_id: 'm1', role: 'user', content: 'hi', created_at: '2026-11-01 10:00:00.000', extra: '{"tokens":3}' },
      { thread_id: 't1', message_id: 'm2', role: 'assistant', content: 'hi', created_at: '2026-11-01 10:00:00.000', extra: '' },
    ]);
  });

  it('names a message whose time cannot be read', () => {
    const { findings } = read('assistant-threads', { threadId: 't1', createdAt: 'x', messages: [{ ...message, createdAt: 'soon' }] });
    expect(findings).toEqual([expect.stringMatching(/^\S+ message m1 createdAt: /)]);
  });

  it('refuses a thread or a message without a field it needs, or with a role other than user or assistant', () => {
    expect(refuses('assistant-threads', { createdAt: 'x', messages: [] })).toBe(true);
    expect(refuses('assistant-threads', { threadId: 't', messages: [] })).toBe(true);
    expect(refuses('assistant-threads', { threadId: 't', createdAt: 'x' })).toBe(true);
    for (const field of Object.keys(message)) {
      const { [field]: _, ...rest } = message as Record<string, unknown>;
      expect(refuses('assistant-threads', { threadId: 't', createdAt: 'x', messages: [rest] })).toBe(true);
    }
    expect(refuses('assistant-threads', { threadId: 't', createdAt: 'x', messages: [{ ...message, role: 'system' }] })).toBe(true);
  });

  it('fans out from the assistant conversations of the run: one request per conversation (or its id), at its own path', () => {
    const pagination = getDataset('assistant-threads').pagination;
    expect(pagination.kind).toBe('fanout');
    if (pagination.kind !== 'fanout') return;
    expect(pagination.source).toBe('assistant');
    expect(pagination.endpointFor('c 1')).toBe('assistant/threads/c 1');
    expect(pagination.idsSql('db.rows').replace(/\s+/g, ' ')).toBe(
      "SELECT DISTINCT if(JSONExtractString(extra, 'conversationId') != '', JSONExtractString(extra, 'conversationId'), id) AS id FROM db.rows WHERE run_id = {runId:String} ORDER BY id",
    );
  });
});

describe('assistant conversations', () => {
  const turn = {
    id: 'c1',
    timestamp: '2026-11-01T10:00:00Z',
    query: 'how?',
    response: 'so',
    responseType: 'clarifying_question',
    sources: [{ title: 'T', url: 'https://u', score: 1 }],
    resolutionStatus: 'answered',
    queryCategory: null,
    pageUrl: '/p',
  };

  it('maps a turn as served (sources reduced to title and url), unknown fields kept, and reads the cursor', () => {
    const { page, rows } = read('assistant', { conversations: [{ ...turn, conversationId: 'x' }], nextCursor: 'n', hasMore: true });
    expect(page).toMatchObject({ hasMore: true, nextCursor: 'n' });
    expect(rows).toEqual([
      {
        id: 'c1',
        timestamp: '2026-11-01 10:00:00.000',
        query: 'how?',
        response: 'so',
        response_type: 'clarifying_question',
        resolution_status: 'answered',
        query_category: null,
        page_url: '/p',
        sources: [{ title: 'T', url: 'https://u' }],
        extra: '{"conversationId":"x"}',
      },
    ]);
    expect(read('assistant', { conversations: [], nextCursor: null, hasMore: false }).page).toMatchObject({ hasMore: false, nextCursor: null });
  });

  it('names a turn whose time cannot be read', () => {
    const { findings } = read('assistant', { conversations: [{ ...turn, timestamp: 'soon' }], nextCursor: null, hasMore: false });
    expect(findings).toEqual([expect.stringMatching(/^\S+ conversation c1 timestamp: /)]);
  });

  it('refuses a page or a turn without a field it needs, or with a value outside its enum', () => {
    expect(refuses('assistant', { conversations: [], hasMore: false })).toBe(true);
    expect(refuses('assistant', { conversations: [], nextCursor: null })).toBe(true);
    for (const field of Object.keys(turn).filter((f) => f !== 'responseType')) {
      const { [field]: _, ...rest } = turn as Record<string, unknown>;
      expect(refuses('assistant', { conversations: [rest], nextCursor: null, hasMore: false })).toBe(true);
    }
    expect(refuses('assistant', { conversations: [{ ...turn, responseType: 'other' }], nextCursor: null, hasMore: false })).toBe(true);
    expect(refuses('assistant', { conversations: [{ ...turn, resolutionStatus: 'other' }], nextCursor: null, hasMore: false })).toBe(true);
    expect(refuses('assistant', { conversations: [{ ...turn, sources: [{ title: 'T' }] }], nextCursor: null, hasMore: false })).toBe(true);
    expect(refuses('assistant', { conversations: [{ ...turn, sources: [{ url: 'u' }] }], nextCursor: null, hasMore: false })).toBe(true);
    expect(refuses('assistant', { conversations: [{ ...turn, responseType: 'answer', resolutionStatus: 'unanswered' }], nextCursor: null, hasMore: false })).toBe(false);
  });
});

describe('visitors and views pages', () => {
  it('round the totals under their names, name a fractional ai count by its path, and round a fractional total of whole counts', () => {
    for (const name of ['visitors', 'views'] as const) {
      const { page, rows, findings } = read(name, {
        totals: { human: 1.5, ai: 2.5, total: 3.5 },
        [name]: [
          { path: '/a', human: 1, ai: 0.5, total: 1.5 },
          { path: '/b', human: 1, ai: 1, total: 1.5 },
          { path: '/c', human: 2, ai: 1, total: 2 },
          { path: '/d', human: 0.5, ai: 0.5, total: 1 },
          { path: '/e', human: 1, ai: 0.5, total: 1 },
        ],
        hasMore: false,
      });
      expect(page.totals).toEqual({ human: 2, ai: 3, total: 4 });
      expect(rows.map((r) => [r.path, r.human, r.ai, r.total])).toEqual([
        ['/a', 1, 1, 2],
        ['/b', 1, 1, 2],
        ['/c', 2, 1, 2],
        ['/d', 1, 1, 1],
        ['/e', 1, 1, 1],
      ]);
      expect(findings).toEqual([
        'fractional_count totals human: 1.5 stored as 2',
        'fractional_count totals ai: 2.5 stored as 3',
        'fractional_count totals total: 3.5 stored as 4',
        'fractional_count path "/a" ai: 0.5 stored as 1',
        'fractional_count path "/a" total: 1.5 stored as 2',
        'fractional_count path "/b" total: 1.5 stored as 2',
        'fractional_count path "/d" human: 0.5 stored as 1',
        'fractional_count path "/d" ai: 0.5 stored as 1',
        'fractional_count path "/e" ai: 0.5 stored as 1',
      ]);
    }
  });

  it('find a total out of bounds in the totals, named as such', () => {
    const { findings } = read('views', { totals: { human: 5, ai: 3, total: 9 }, views: [], hasMore: true });
    expect(findings).toEqual(['total_out_of_bounds totals: total 9 outside [max(human, ai) = 5, human + ai = 8]']);
  });
});
