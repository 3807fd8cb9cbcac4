import { afterAll, describe, expect, it } from 'vitest';
import {
  analyticsThread,
  analyticsTruth,
  createEmulator,
  type AssistantRow,
  type Emulator,
  type EmulatorOptions,
  type FeedbackItem,
  type TrafficRow,
} from '../../src/emulator/index.js';
import { cursorPages, get, getThread, offsetPages, rowsOf, ROWS_FIELD } from '../support/analytics-client.js';
import { specLimit } from '../support/analytics-spec.js';

const FROM = '2026-03-01';
const TO = '2026-03-04';
const WINDOW = { dateFrom: FROM, dateTo: TO };
const NOW = Date.UTC(2026, 5, 15, 13, 30);

const emulators: Emulator[] = [];
afterAll(async () => {
  await Promise.all(emulators.map((emulator) => emulator.close()));
});

function emulator(options: EmulatorOptions = {}): Emulator {
  const created = createEmulator({ now: () => NOW, ...options });
  emulators.push(created);
  return created;
}

/** The key that tells rows of a dataset apart. */
const KEY = { feedback: 'id', assistant: 'id', searches: 'searchQuery' } as const;

describe('emulator analytics: cursor paging reaches the ground truth', () => {
  const options: EmulatorOptions = { extraFields: true, approximateCounts: 0.2, invalidText: 0.1 };
  const target = emulator(options);

  it.each(['feedback', 'assistant', 'searches'] as const)('%s pages at every limit to exactly analyticsTruth, with no duplicate and a null cursor only at the end', async (dataset) => {
    const truth = analyticsTruth(options, dataset, 'acme', FROM, TO);
    expect(truth.items.length).toBeGreaterThan(100);
    for (const limit of [1, 7, specLimit(dataset)!.default, specLimit(dataset)!.max]) {
      const pages = await cursorPages(target, dataset, 'acme', { ...WINDOW, limit });
      const rows = rowsOf(pages, ROWS_FIELD[dataset]);
      expect(rows, `limit ${limit}`).toEqual(truth.items);
      expect(new Set(rows.map((row) => row[KEY[dataset]])).size).toBe(rows.length);
      expect(pages).toHaveLength(Math.max(1, Math.ceil(truth.items.length / limit)));
      for (const page of pages.slice(0, -1)) {
        expect(page.body[ROWS_FIELD[dataset]]).toHaveLength(limit);
        if (dataset !== 'searches') expect(page.body.hasMore).toBe(true);
        expect(page.body.nextCursor).toEqual(expect.any(String));
      }
      if (dataset !== 'searches') expect(pages.at(-1)!.body.hasMore).toBe(false);
      else expect(pages.at(-1)!.body).not.toHaveProperty('hasMore');
    }
  });

  it('gives the assistant ULID cursors, and searches the same totalSearches on every page, equal to the truth', async () => {
    const assistant = await get(target, 'assistant', 'acme', { ...WINDOW, limit: 3 });
    expect(assistant.body.nextCursor).toMatch(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    const pages = await cursorPages(target, 'searches', 'acme', { ...WINDOW, limit: 40 });
    const { totals } = analyticsTruth(options, 'searches', 'acme', FROM, TO);
    for (const page of pages) expect(page.body.totalSearches).toBe(totals.totalSearches);
    expect(Number.isInteger(totals.totalSearches)).toBe(true);
  });

  it('keeps a cursor valid when the limit changes between pages (positions count rows)', async () => {
    const truth = analyticsTruth(options, 'feedback', 'acme', FROM, TO).items;
    const first = await get(target, 'feedback', 'acme', { ...WINDOW, limit: 5 });
    const second = await get(target, 'feedback', 'acme', { ...WINDOW, limit: 20, cursor: first.body.nextCursor as string });
    expect([...(first.body.feedback as FeedbackItem[]), ...(second.body.feedback as FeedbackItem[])]).toEqual(truth.slice(0, 25));
  });

  it('filters feedback by source and status, pages the filtered list, and refuses a cursor of another filter', async () => {
    const filters = { source: 'contextual' as const, statuses: ['pending' as const, 'resolved' as const] };
    const truth = analyticsTruth(options, 'feedback', 'acme', FROM, TO, { filters }).items;
    expect(truth.length).toBeGreaterThan(5);
    expect(truth.every((item) => item.source === 'contextual' && ['pending', 'resolved'].includes(item.status))).toBe(true);
    const pages = await cursorPages(target, 'feedback', 'acme', { ...WINDOW, limit: 4, source: 'contextual', status: 'resolved,pending' });
    expect(rowsOf(pages, 'feedback')).toEqual(truth);
    const other = await get(target, 'feedback', 'acme', { ...WINDOW, limit: 4, source: 'agent', cursor: pages[0]!.body.nextCursor as string });
    expect(other.status).toBe(400);
  });

  it('refuses a cursor used for another window, project or dataset, or altered by one character', async () => {
    const page = await get(target, 'assistant', 'acme', { ...WINDOW, limit: 3 });
    const cursor = page.body.nextCursor as string;
    expect((await get(target, 'assistant', 'acme', { ...WINDOW, limit: 3, cursor })).status).toBe(200);
    expect((await get(target, 'assistant', 'acme', { dateFrom: FROM, dateTo: '2026-03-05', cursor })).status).toBe(400);
    expect((await get(target, 'assistant', 'globex', { ...WINDOW, cursor })).status).toBe(400);
    expect((await get(target, 'feedback', 'acme', { ...WINDOW, cursor })).status).toBe(400);
    const altered = cursor.slice(0, -1) + (cursor.endsWith('A') ? 'B' : 'A');
    expect((await get(target, 'assistant', 'acme', { ...WINDOW, cursor: altered })).status).toBe(400);
  });
});

describe('emulator analytics: cursor expiry', () => {
  it('refuses a cursor older than cursorTtlMs, so a client restarts the window from its first page', async () => {
    let nowMs = NOW;
    const target = emulator({ cursorTtlMs: 60_000, now: () => nowMs });
    const first = await get(target, 'searches', 'acme', { ...WINDOW, limit: 10 });
    nowMs += 60_000;
    expect((await get(target, 'searches', 'acme', { ...WINDOW, cursor: first.body.nextCursor as string })).status).toBe(200);
    nowMs += 1;
    const expired = await get(target, 'searches', 'acme', { ...WINDOW, cursor: first.body.nextCursor as string });
    expect(expired.status).toBe(400);
    expect(expired.body.details).toEqual([{ message: expect.stringContaining('expired') }]);
    const restart = await get(target, 'searches', 'acme', { ...WINDOW, limit: 10 });
    expect(restart.body.searches).toEqual(first.body.searches);
  });

  it('keeps cursors valid for ever by default', async () => {
    let nowMs = NOW;
    const target = emulator({ now: () => nowMs });
    const first = await get(target, 'feedback', 'acme', { ...WINDOW, limit: 10 });
    nowMs += 400 * 86_400_000;
    expect((await get(target, 'feedback', 'acme', { ...WINDOW, cursor: first.body.nextCursor as string })).status).toBe(200);
  });
});

describe('emulator analytics: offset endpoints, short pages and single calls', () => {
  it.each(['visitors', 'views'] as const)('%s with maxPageRows serves short pages with hasMore, and offsets of rows received reach the truth', async (dataset) => {
    const options: EmulatorOptions = { maxPageRows: 100, pathsFor: () => 730 };
    const target = emulator(options);
    const truth = analyticsTruth(options, dataset, 'acme', FROM, TO);
    expect(truth.items).toHaveLength(730);
    const pages = await offsetPages(target, dataset, 'acme', { ...WINDOW, limit: 250 });
    expect(pages.map((page) => (page.body[dataset] as unknown[]).length)).toEqual([100, 100, 100, 100, 100, 100, 100, 30]);
    expect(pages.slice(0, -1).every((page) => page.body.hasMore === true)).toBe(true);
    expect(rowsOf(pages, dataset)).toEqual(truth.items);
    for (const page of pages) expect(page.body.totals).toEqual(truth.totals);
  });

  it('serves views as events: total = human + ai on every row, and window totals that are the sums of the rows', () => {
    const { items, totals } = analyticsTruth({}, 'views', 'acme', FROM, TO);
    expect(items.every((row) => row.total === row.human + row.ai)).toBe(true);
    const sum = (field: 'human' | 'ai' | 'total') => items.reduce((acc, row) => acc + row[field], 0);
    expect(totals).toEqual({ human: sum('human'), ai: sum('ai'), total: sum('total') });
    const paths = (rows: TrafficRow[]) => rows.map((row) => row.path).sort();
    expect(paths(items)).toEqual(paths(analyticsTruth({}, 'visitors', 'acme', FROM, TO).items));
  });

  it('answers feedback by page in one call: the top pages by total, hasMore when the window has more pages than the limit', async () => {
    const options: EmulatorOptions = { itemsFor: (dataset) => ({ feedback: 400, 'feedback-by-page': 130 })[dataset as 'feedback'] ?? 50 };
    const target = emulator(options);
    const truth = analyticsTruth(options, 'feedback-by-page', 'acme', FROM, TO).items;
    expect(truth).toHaveLength(130);
    const feedback = analyticsTruth(options, 'feedback', 'acme', FROM, TO).items;
    const intro = feedback.filter((item) => item.path === truth[0]!.path);
    expect(truth[0]).toEqual({
      path: truth[0]!.path,
      thumbsUp: intro.filter((item) => item.source === 'contextual' && item.helpful).length,
      thumbsDown: intro.filter((item) => item.source === 'contextual' && !item.helpful).length,
      code: intro.filter((item) => item.source === 'code_snippet').length,
      total: intro.length,
    });
    const capped = await get(target, 'feedback-by-page', 'acme', { ...WINDOW, limit: 100 });
    expect(capped.body).toEqual({ feedback: truth.slice(0, 100), hasMore: true });
    const small = analyticsTruth({ itemsFor: () => 20 }, 'feedback-by-page', 'acme', FROM, TO).items;
    const whole = await get(emulator({ itemsFor: () => 20 }), 'feedback-by-page', 'acme', { ...WINDOW, limit: 100 });
    expect(whole.body).toEqual({ feedback: small, hasMore: false });
  });

  it('answers caller stats that add up to the assistant turns of the window', async () => {
    const target = emulator();
    const stats = await get(target, 'assistant-caller-stats', 'acme', WINDOW);
    const turns = analyticsTruth({}, 'assistant', 'acme', FROM, TO).items.length;
    expect(stats.body).toEqual(analyticsTruth({}, 'assistant-caller-stats', 'acme', FROM, TO).totals);
    expect(stats.body.total).toBe(turns);
    expect((stats.body.web as number) + (stats.body.api as number) + (stats.body.other as number)).toBe(turns);
  });
});

describe('emulator analytics: data per window', () => {
  it('is deterministic per seed, differs per project and seed, and is not additive over days', () => {
    expect(analyticsTruth({}, 'feedback', 'acme', FROM, TO)).toEqual(analyticsTruth({}, 'feedback', 'acme', FROM, TO));
    expect(analyticsTruth({ seed: 7 }, 'assistant', 'acme', FROM, TO)).not.toEqual(analyticsTruth({}, 'assistant', 'acme', FROM, TO));
    expect(analyticsTruth({}, 'searches', 'globex', FROM, TO)).not.toEqual(analyticsTruth({}, 'searches', 'acme', FROM, TO));
    const days = ['2026-03-01', '2026-03-02', '2026-03-03', '2026-03-04'];
    const dayIds = new Set(days.slice(0, -1).flatMap((day, i) => analyticsTruth({}, 'feedback', 'acme', day, days[i + 1]!).items.map((item) => item.id)));
    const rangeIds = analyticsTruth({}, 'feedback', 'acme', FROM, TO).items.map((item) => item.id);
    expect(rangeIds.some((id) => dayIds.has(id))).toBe(false);
  });

  it('sizes windows with small defaults per day, and a project id ending -N sets N items of every dataset', () => {
    const day = (dataset: 'feedback' | 'assistant' | 'searches' | 'feedback-by-page') => analyticsTruth({}, dataset, 'acme', '2026-03-01', '2026-03-02').items.length;
    expect(day('feedback')).toBeGreaterThanOrEqual(30);
    expect(day('feedback')).toBeLessThanOrEqual(80);
    expect(day('assistant')).toBeGreaterThanOrEqual(50);
    expect(day('assistant')).toBeLessThanOrEqual(200);
    expect(day('searches')).toBeGreaterThanOrEqual(100);
    expect(day('searches')).toBeLessThanOrEqual(300);
    expect(day('feedback-by-page')).toBeGreaterThanOrEqual(20);
    for (const dataset of ['feedback', 'assistant', 'searches', 'views'] as const) {
      expect(analyticsTruth({}, dataset, 'bench-321', FROM, TO).items, dataset).toHaveLength(321);
    }
  });

  it('serves the three feedback shapes with nullable fields sometimes null, and assistant rows sometimes without responseType', () => {
    const items = analyticsTruth({ itemsFor: () => 600 }, 'feedback', 'acme', FROM, TO).items;
    const keys = (source: string) => new Set(items.filter((item) => item.source === source).map((item) => Object.keys(item).sort().join(',')));
    expect(keys('contextual')).toEqual(new Set(['comment,contact,createdAt,helpful,id,path,source,status']));
    expect(keys('code_snippet')).toEqual(new Set(['code,comment,createdAt,filename,id,lang,path,source,status']));
    expect(keys('agent')).toEqual(new Set(['comment,createdAt,id,path,source,status']));
    expect(keys('thumbs_only')).toEqual(new Set(['comment,createdAt,id,path,source,status']));
    for (const field of ['comment', 'createdAt', 'contact', 'filename', 'lang'] as const) {
      expect(items.some((item) => item[field] === null), field).toBe(true);
    }
    const rows = analyticsTruth({ itemsFor: () => 600 }, 'assistant', 'acme', FROM, TO).items;
    expect(rows.some((row) => !('responseType' in row))).toBe(true);
    expect(rows.some((row) => row.responseType === 'clarifying_question')).toBe(true);
    expect(rows.some((row) => row.queryCategory === null) && rows.some((row) => row.pageUrl === null)).toBe(true);
  });
});

describe('emulator analytics knobs', () => {
  it('shuffle changes the order of rows, never the set, and keeps one order across the pages of a window', async () => {
    for (const dataset of ['visitors', 'views', 'feedback', 'assistant'] as const) {
      const plain = analyticsTruth({}, dataset, 'acme', FROM, TO).items as { path?: string; id?: string }[];
      const shuffled = analyticsTruth({ shuffle: true }, dataset, 'acme', FROM, TO).items as { path?: string; id?: string }[];
      expect(shuffled, dataset).not.toEqual(plain);
      const key = (row: { path?: string; id?: string }) => row.id ?? row.path!;
      expect(shuffled.map(key).sort(), dataset).toEqual(plain.map(key).sort());
    }
    const target = emulator({ shuffle: true });
    const pages = await cursorPages(target, 'assistant', 'acme', { ...WINDOW, limit: 33 });
    expect(rowsOf(pages, 'conversations')).toEqual(analyticsTruth({ shuffle: true }, 'assistant', 'acme', FROM, TO).items);
  });

  it('shuffle keeps searches by hits desc, as the spec promises, moving only ties', () => {
    const plain = analyticsTruth({}, 'searches', 'acme', FROM, TO).items;
    const shuffled = analyticsTruth({ shuffle: true }, 'searches', 'acme', FROM, TO).items;
    expect(shuffled.map((row) => row.hits)).toEqual(plain.map((row) => row.hits));
    expect(shuffled.map((row) => row.searchQuery)).not.toEqual(plain.map((row) => row.searchQuery));
  });

  it('approximateCounts serves some totals outside max(human, ai)…human+ai and some non-whole counts; without it none', () => {
    const outOfBounds = (row: { human: number; ai: number; total: number }) => row.total < Math.max(row.human, row.ai) || row.total > row.human + row.ai;
    const fractional = (...counts: number[]) => counts.some((count) => !Number.isInteger(count));
    for (const dataset of ['visitors', 'views'] as const) {
      const exact = analyticsTruth({}, dataset, 'acme', FROM, TO).items as TrafficRow[];
      expect(exact.some(outOfBounds) || exact.some((row) => fractional(row.human, row.ai, row.total))).toBe(false);
      const approximate = analyticsTruth({ approximateCounts: 0.2 }, dataset, 'acme', FROM, TO).items as TrafficRow[];
      const broken = approximate.filter(outOfBounds).length / approximate.length;
      expect(broken, dataset).toBeGreaterThan(0.05);
      expect(broken, dataset).toBeLessThan(0.15);
      expect(approximate.some((row) => fractional(row.human, row.total)), dataset).toBe(true);
    }
    const everyWindow = { approximateCounts: 1 };
    expect(fractional(...Object.values(analyticsTruth(everyWindow, 'assistant-caller-stats', 'acme', FROM, TO).totals) as number[])).toBe(true);
    expect(analyticsTruth(everyWindow, 'searches', 'acme', FROM, TO).items.every((row) => fractional(row.hits))).toBe(true);
    expect(analyticsTruth(everyWindow, 'feedback-by-page', 'acme', FROM, TO).items.every((row) => fractional(row.thumbsUp, row.total))).toBe(true);
    expect(analyticsTruth({}, 'searches', 'acme', FROM, TO).items.every((row) => Number.isInteger(row.hits))).toBe(true);
  });

  it('extraFields adds a conversationId shared by the turns of a conversation, and _sampleRate elsewhere; without it, neither', () => {
    const rows = analyticsTruth({ extraFields: true }, 'assistant', 'acme', FROM, TO).items;
    const sizes = new Map<string, number>();
    for (const row of rows) sizes.set(row.conversationId!, (sizes.get(row.conversationId!) ?? 0) + 1);
    expect([...sizes.values()].some((size) => size > 1)).toBe(true);
    expect([...sizes.keys()].every((id) => rows.some((row) => row.id === id))).toBe(true);
    for (const dataset of ['visitors', 'views', 'feedback', 'feedback-by-page', 'searches'] as const) {
      expect((analyticsTruth({ extraFields: true }, dataset, 'acme', FROM, TO).items as object[]).every((item) => '_sampleRate' in item), dataset).toBe(true);
      expect(JSON.stringify(analyticsTruth({}, dataset, 'acme', FROM, TO))).not.toContain('_sampleRate');
    }
    expect(analyticsTruth({}, 'assistant', 'acme', FROM, TO).items.some((row: AssistantRow) => 'conversationId' in row)).toBe(false);
  });

  it('invalidText puts a lone surrogate, JSON-escaped, into some text fields of the body', async () => {
    const target = emulator({ invalidText: 0.2 });
    const page = await get(target, 'assistant', 'acme', { ...WINDOW, limit: 1000 });
    expect(page.raw).toContain('\\ud800');
    const feedback = await get(target, 'feedback', 'acme', { ...WINDOW, limit: 100 });
    expect(feedback.raw).toContain('\\ud800');
    const clean = await get(emulator(), 'assistant', 'acme', { ...WINDOW, limit: 1000 });
    expect(clean.raw).not.toMatch(/\\ud[89ab]/);
  });
});

describe('emulator analytics: threads', () => {
  it('knows exactly the conversations of the assistant windows it served, as their truth says, 2–8 messages each', async () => {
    const options: EmulatorOptions = { extraFields: true };
    const target = emulator(options);
    const pages = await cursorPages(target, 'assistant', 'acme', { ...WINDOW, limit: 1000 });
    const ids = [...new Set(rowsOf(pages, 'conversations').map((row) => row.conversationId as string))];
    const threads = analyticsTruth(options, 'assistant-threads', 'acme', FROM, TO).items;
    expect(threads.map((thread) => thread.threadId).sort()).toEqual(ids.sort());
    for (const thread of threads.slice(0, 25)) {
      const answer = await getThread(target, 'acme', thread.threadId);
      expect(answer.body).toEqual(thread);
      expect(answer.body).toEqual(analyticsThread(options, 'acme', FROM, TO, thread.threadId));
    }
    expect(threads.every((thread) => thread.messages.length >= 2 && thread.messages.length <= 8 && thread.messages.length % 2 === 0)).toBe(true);
    expect(threads.some((thread) => thread.messages.length > 2)).toBe(true);
    expect((await getThread(target, 'globex', threads[0]!.threadId)).status).toBe(404);
  });

  it('without extra fields, each assistant row is its own thread, found by the row id', async () => {
    const target = emulator();
    const page = await get(target, 'assistant', 'acme', { ...WINDOW, limit: 5 });
    const row = (page.body.conversations as AssistantRow[])[3]!;
    const thread = await getThread(target, 'acme', row.id);
    expect(thread.status).toBe(200);
    expect(thread.body).toMatchObject({ threadId: row.id, createdAt: row.timestamp });
    expect((thread.body.messages as { role: string; content: string }[]).map((m) => [m.role, m.content])).toEqual([
      ['user', row.query],
      ['assistant', row.response],
    ]);
  });
});

describe('emulator analytics: one budget, faults and counters on every route', () => {
  it('spends one organization budget across all analytics routes and projects', async () => {
    const target = emulator({ analyticsRate: { limit: 5, windowMs: 3_600_000 } });
    const statuses: number[] = [];
    for (const dataset of ['views', 'feedback', 'searches', 'assistant-caller-stats', 'feedback-by-page', 'assistant'] as const) {
      statuses.push((await get(target, dataset, dataset === 'views' ? 'globex' : 'acme', WINDOW)).status);
    }
    statuses.push((await getThread(target, 'acme', '01KDW0GTGZJZ6JBMYF34000019')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(target.counters.analyticsBudgetUsed).toBe(5);
    expect(target.counters.analytics429).toBe(2);
    expect(target.counters.analyticsRequests).toBe(7);
    expect(target.counters.analyticsServed).toBe(5);
  });

  it('applies scripted and random faults to the new routes too', async () => {
    const target = emulator();
    target.control.script('feedback', [{ kind: 'status', status: 503 }, { kind: 'rateLimit', retryAfterSeconds: 7 }]);
    expect((await get(target, 'feedback', 'acme', WINDOW)).status).toBe(503);
    expect((await get(target, 'feedback', 'acme', WINDOW)).status).toBe(429);
    expect((await get(target, 'feedback', 'acme', WINDOW)).status).toBe(200);
    target.control.setFaults({ serverErrorRate: 1, routes: ['searches'] });
    expect((await get(target, 'searches', 'acme', WINDOW)).status).toBeGreaterThanOrEqual(500);
    expect((await get(target, 'views', 'acme', WINDOW)).status).toBe(200);
    expect(target.counters.routes.feedback.statuses).toEqual({ 200: 1, 429: 1, 503: 1 });
  });

  it('control.truth follows a mutation of the project, like the served pages', async () => {
    const target = emulator();
    const before = target.control.truth('feedback', 'drift', FROM, TO).items;
    target.control.mutate('drift');
    const after = target.control.truth('feedback', 'drift', FROM, TO).items;
    expect(after).not.toEqual(before);
    expect(rowsOf(await cursorPages(target, 'feedback', 'drift', { ...WINDOW, limit: 100 }), 'feedback')).toEqual(after);
  });
});
