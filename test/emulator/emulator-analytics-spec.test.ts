import { afterAll, describe, expect, it } from 'vitest';
import { ANALYTICS_DATASETS, createEmulator, type AnalyticsDataset, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { cursorPages, get, getThread, offsetPages, ROWS_FIELD, type Reply } from '../support/analytics-client.js';
import { analyticsSpec, specLimit, specProblems } from '../support/analytics-spec.js';

const WINDOW = { dateFrom: '2026-03-01', dateTo: '2026-03-04' };
/** A clock in the middle of 2026-06-15 (UTC). */
const NOW = Date.UTC(2026, 5, 15, 13, 30);
const PAGED = ['visitors', 'views', 'feedback', 'feedback-by-page', 'assistant', 'assistant-caller-stats', 'searches'] as const;
type Paged = (typeof PAGED)[number];

const emulators: Emulator[] = [];
afterAll(async () => {
  await Promise.all(emulators.map((emulator) => emulator.close()));
});

function emulator(options: EmulatorOptions = {}): Emulator {
  const created = createEmulator({ now: () => NOW, ...options });
  emulators.push(created);
  return created;
}

/** Every answer of a window of `dataset`, all pages at the endpoint's largest limit. */
async function allAnswers(target: Emulator, dataset: Paged, projectId: string): Promise<Reply[]> {
  const limit = specLimit(dataset)?.max;
  if (dataset === 'visitors' || dataset === 'views') return offsetPages(target, dataset, projectId, { ...WINDOW, limit: limit! });
  if (dataset === 'feedback' || dataset === 'assistant' || dataset === 'searches') return cursorPages(target, dataset, projectId, { ...WINDOW, limit });
  return [await get(target, dataset, projectId, { ...WINDOW, limit })];
}

const KNOBS_ON: EmulatorOptions = { extraFields: true, approximateCounts: 0.3, invalidText: 0.3, shuffle: true, maxPageRows: 100 };

describe('emulator analytics answers follow the published schemas', () => {
  it('has all eight operations of the spec, and no spec item schema closes its objects (so extra fields are allowed)', () => {
    expect(Object.keys(analyticsSpec.operations).sort()).toEqual([...ANALYTICS_DATASETS].sort());
    const closed = JSON.stringify(analyticsSpec.definitions).includes('"additionalProperties":false');
    expect(closed).toBe(false);
  });

  it.each([
    ['with default knobs', {}],
    ['with every knob on (extra fields, approximate counts, broken text, shuffle, short pages)', KNOBS_ON],
  ])('answers every page of every dataset with a 200 body the spec accepts, %s', async (_name, options) => {
    const target = emulator(options);
    for (const dataset of PAGED) {
      const answers = await allAnswers(target, dataset, 'acme');
      for (const answer of answers) {
        expect(answer.status, dataset).toBe(200);
        expect(specProblems(dataset, 200, answer.body), dataset).toEqual([]);
      }
      if (dataset in ROWS_FIELD) expect(answers.flatMap((a) => a.body[ROWS_FIELD[dataset as keyof typeof ROWS_FIELD]] as unknown[]).length, dataset).toBeGreaterThan(0);
    }
    const { conversations } = (await get(target, 'assistant', 'acme', { ...WINDOW, limit: 5 })).body as { conversations: { id: string; conversationId?: string }[] };
    const thread = await getThread(target, 'acme', conversations[0]!.conversationId ?? conversations[0]!.id);
    expect(thread.status).toBe(200);
    expect(specProblems('assistant-threads', 200, thread.body)).toEqual([]);
  });

  it('shows that the schema check bites: a row without its total, or a string count, is refused', () => {
    expect(specProblems('views', 200, { totals: { human: 1, ai: 1, total: 2 }, views: [{ path: '/a', human: 1, ai: 1 }], hasMore: false })).not.toEqual([]);
    expect(specProblems('searches', 200, { searches: [], totalSearches: '3', nextCursor: null })).not.toEqual([]);
    expect(specProblems('feedback', 200, { feedback: [{ id: 'x', path: '/a', source: 'agent', status: 'open' }], nextCursor: null, hasMore: false })).not.toEqual([]);
  });
});

describe('emulator analytics parameters follow the published limits', () => {
  const target = emulator({ itemsFor: () => 1200 });

  it.each(PAGED.filter((dataset) => specLimit(dataset)))('%s accepts limit from the spec minimum to maximum and refuses outside, with the spec error shape', async (dataset) => {
    const limit = specLimit(dataset)!;
    for (const ok of [limit.min, limit.max]) {
      const answer = await get(target, dataset, 'acme', { ...WINDOW, limit: ok });
      expect(answer.status, `limit=${ok}`).toBe(200);
      expect((answer.body[ROWS_FIELD[dataset as keyof typeof ROWS_FIELD]] as unknown[]).length).toBeLessThanOrEqual(ok);
    }
    for (const bad of [limit.min - 1, limit.max + 1, 'ten', '-3']) {
      const answer = await get(target, dataset, 'acme', { ...WINDOW, limit: bad });
      expect(answer.status, `limit=${bad}`).toBe(400);
      expect(specProblems(dataset, 400, answer.body)).toEqual([]);
      expect(answer.body.details).toEqual([{ message: expect.stringContaining('limit') }]);
    }
    const fractional = await get(target, dataset, 'acme', { ...WINDOW, limit: '2.5' });
    expect(fractional.status, 'limit=2.5').toBe(limit.integer ? 400 : 200);
  });

  it.each(PAGED.filter((dataset) => specLimit(dataset)))('%s serves the spec default limit when none is given', async (dataset) => {
    const answer = await get(target, dataset, 'acme', WINDOW);
    const rows = answer.body[ROWS_FIELD[dataset as keyof typeof ROWS_FIELD]] as unknown[];
    expect(rows).toHaveLength(specLimit(dataset)!.default);
  });

  it.each(PAGED)('%s answers a window longer than 366 days with 400 at once, without computing it', async (dataset) => {
    for (const window of [{ dateFrom: '0001-01-01', dateTo: '9999-12-31' }, { dateFrom: '2025-01-01', dateTo: '2026-01-03' }]) {
      const startedAt = performance.now();
      const answer = await get(target, dataset, 'acme', window);
      expect(performance.now() - startedAt).toBeLessThan(1000);
      expect(answer.status).toBe(400);
      expect(specProblems(dataset, 400, answer.body)).toEqual([]);
      expect(answer.body.details).toEqual([{ message: expect.stringContaining('more than 366 days') }]);
    }
  });

  it.each(PAGED)('%s refuses malformed or inverted dates with 400 and a detail per problem', async (dataset) => {
    const answer = await get(target, dataset, 'acme', { dateFrom: '2026-02-30', dateTo: 'tomorrow' });
    expect(answer.status).toBe(400);
    expect(specProblems(dataset, 400, answer.body)).toEqual([]);
    expect(answer.body.details).toEqual([{ message: expect.stringContaining('dateFrom') }, { message: expect.stringContaining('dateTo') }]);
    const inverted = await get(target, dataset, 'acme', { dateFrom: '2026-03-04', dateTo: '2026-03-04' });
    expect(inverted.body.details).toEqual([{ message: expect.stringContaining('after') }]);
  });

  it.each(PAGED)('%s takes dates as optional: without them, the 30 days before today (UTC)', async (dataset) => {
    const implicit = await get(target, dataset, 'acme', {});
    const explicit = await get(target, dataset, 'acme', { dateFrom: '2026-05-16', dateTo: '2026-06-15' });
    const onlyTo = await get(target, dataset, 'acme', { dateTo: '2026-06-15' });
    expect(implicit.status).toBe(200);
    expect(implicit.body).toEqual(explicit.body);
    expect(onlyTo.body).toEqual(explicit.body);
    const other = await get(target, dataset, 'acme', { dateFrom: '2026-05-17', dateTo: '2026-06-15' });
    expect(other.body).not.toEqual(explicit.body);
  });

  it('refuses a negative or fractional offset on the offset endpoints', async () => {
    for (const dataset of ['visitors', 'views'] as const) {
      for (const offset of ['-1', '1.5']) {
        const answer = await get(target, dataset, 'acme', { ...WINDOW, offset });
        expect(answer.status).toBe(400);
        expect(answer.body.details).toEqual([{ message: expect.stringContaining('offset') }]);
      }
    }
  });

  it('checks the feedback filters: source from the spec enum, status a comma list of known statuses', async () => {
    const sources = analyticsSpec.operations.feedback.parameters.source!.schema.enum!;
    for (const dataset of ['feedback', 'feedback-by-page'] as const) {
      for (const source of sources) expect((await get(target, dataset, 'acme', { ...WINDOW, source })).status).toBe(200);
      expect((await get(target, dataset, 'acme', { ...WINDOW, status: 'pending,resolved' })).status).toBe(200);
      const bad = await get(target, dataset, 'acme', { ...WINDOW, source: 'email', status: 'pending,open' });
      expect(bad.status).toBe(400);
      expect(bad.body.details).toEqual([{ message: expect.stringContaining('source') }, { message: expect.stringContaining('status') }]);
    }
  });

  it('answers a thread that is no ULID with 400 and an unknown one with 404, both in the spec error shape', async () => {
    const bad = await getThread(target, 'acme', 'not-a-ulid');
    expect(bad.status).toBe(400);
    expect(specProblems('assistant-threads', 400, bad.body)).toEqual([]);
    const unknown = await getThread(target, 'acme', '01KDW0GTGZJZ6JBMYF34000019');
    expect(unknown.status).toBe(404);
    expect(specProblems('assistant-threads', 404, unknown.body)).toEqual([]);
    expect(unknown.body).toEqual({ error: expect.any(String) });
  });

  it.each(['feedback', 'assistant', 'searches'] as const)('%s refuses a cursor that is not one it issued', async (dataset) => {
    const answer = await get(target, dataset, 'acme', { ...WINDOW, cursor: 'not-a-cursor' });
    expect(answer.status).toBe(400);
    expect(specProblems(dataset, 400, answer.body)).toEqual([]);
    expect(answer.body.details).toEqual([{ message: expect.stringContaining('cursor') }]);
  });
});

describe('emulator analytics datasets in the spec', () => {
  it.each(ANALYTICS_DATASETS)('%s has a route that answers with its spec path', async (dataset: AnalyticsDataset) => {
    const target = emulator();
    const path = analyticsSpec.operations[dataset].path.replace('{projectId}', 'acme').replace('{threadId}', '01KDW0GTGZJZ6JBMYF34000019');
    const response = await target.app.inject({ url: path, headers: { authorization: 'Bearer mint_x' } });
    expect(response.statusCode).toBe(dataset === 'assistant-threads' ? 404 : 200);
    expect(target.counters.routes[dataset].requests).toBe(1);
  });
});
