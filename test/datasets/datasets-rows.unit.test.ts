import { describe, expect, it } from 'vitest';
import { FindingLog, getDataset, parseDatasetList, RowContext } from '../../src/datasets/index.js';
import { schemaOf } from '../../src/datasets/dataset-schema.js';
import { MAX_FINDINGS_PER_PAGE } from '../../src/datasets/findings.js';

function context(pii: 'keep' | 'hash' | 'drop' = 'keep') {
  const log = new FindingLog();
  return { log, ctx: new RowContext(log, pii) };
}

describe('rows of the datasets', () => {
  it('rounds counts that are not whole to the nearest and records the raw value; whole counts pass silently', () => {
    const { log, ctx } = context();
    expect(ctx.count('hits', 12.5)).toBe(13);
    expect(ctx.count('hits', 12.4)).toBe(12);
    expect(ctx.count('hits', 7)).toBe(7);
    expect(log.drain()).toEqual([
      { kind: 'fractional_count', detail: 'hits: 12.5 stored as 13' },
      { kind: 'fractional_count', detail: 'hits: 12.4 stored as 12' },
    ]);
  });

  it('records a total outside max(human, ai) … human + ai at either end, and nothing within', () => {
    const { log, ctx } = context();
    ctx.totalBounds('a', { human: 5, ai: 3, total: 5 });
    ctx.totalBounds('b', { human: 5, ai: 3, total: 8 });
    expect(log.drain()).toEqual([]);
    ctx.totalBounds('low', { human: 5, ai: 3, total: 4 });
    ctx.totalBounds('high', { human: 5, ai: 3, total: 9 });
    expect(log.drain().map((f) => [f.kind, f.detail.split(':')[0]])).toEqual([
      ['total_out_of_bounds', 'low'],
      ['total_out_of_bounds', 'high'],
    ]);
  });

  it('maps visitors and views rows as served, recording what is not whole or out of bounds under the row\'s path', () => {
    for (const name of ['visitors', 'views'] as const) {
      const dataset = getDataset(name);
      const { log, ctx } = context();
      const rows = [
        { path: '/a', human: 5, ai: 3, total: 8 },
        { path: '/b', human: 5, ai: 3, total: 5 },
        { path: '/low', human: 5, ai: 3, total: 4 },
        { path: '/high', human: 5, ai: 3, total: 9 },
        { path: '/half', human: 2.5, ai: 0, total: 2.5 },
        { path: '/extra', human: 1, ai: 0, total: 1, _sampleRate: 0.5 },
      ].map((item) => dataset.row(item, ctx));
      expect(rows).toEqual([
        { path: '/a', human: 5, ai: 3, total: 8, extra: '' },
        { path: '/b', human: 5, ai: 3, total: 5, extra: '' },
        { path: '/low', human: 5, ai: 3, total: 4, extra: '' },
        { path: '/high', human: 5, ai: 3, total: 9, extra: '' },
        { path: '/half', human: 3, ai: 0, total: 3, extra: '' },
        { path: '/extra', human: 1, ai: 0, total: 1, extra: '{"_sampleRate":0.5}' },
      ]);
      expect(log.drain().map((f) => `${f.kind} ${f.detail}`)).toEqual([
        'total_out_of_bounds path "/low": total 4 outside [max(human, ai) = 5, human + ai = 8]',
        'total_out_of_bounds path "/high": total 9 outside [max(human, ai) = 5, human + ai = 8]',
        'fractional_count path "/half" human: 2.5 stored as 3',
        'fractional_count path "/half" total: 2.5 stored as 3',
      ]);
    }
  });

  it('keeps, hashes or drops personal fields as MINTPIPE_PII says', () => {
    expect(context('keep').ctx.personal('me@example.com')).toBe('me@example.com');
    expect(context('drop').ctx.personal('me@example.com')).toBeNull();
    const hashed = context('hash').ctx.personal('me@example.com');
    expect(hashed).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(hashed).not.toContain('me@example.com');
    expect(context('hash').ctx.personal(null)).toBeNull();
  });

  it('turns timestamps into DateTime64 text in UTC, and text that is no date into NULL with a finding', () => {
    const { log, ctx } = context();
    expect(ctx.timestamp('t', '2026-10-01T12:34:56.789+02:00')).toBe('2026-10-01 10:34:56.789');
    expect(ctx.timestamp('t', '2026-10-01 12:34:56')).toBe('2026-10-01 12:34:56.000');
    expect(ctx.timestamp('t', '2026-10-01T12:34')).toBe('2026-10-01 12:34:00.000');
    expect(ctx.timestamp('t', '2026-10-01')).toBe('2026-10-01 00:00:00.000');
    expect(ctx.timestamp('t', null)).toBeNull();
    expect(log.drain()).toEqual([]);
    expect(ctx.timestamp('t', 'yesterday')).toBeNull();
    expect(log.drain().map((f) => f.kind)).toEqual(['invalid_text']);
  });

  it('keeps fields beyond the schema as JSON in extra', () => {
    const { ctx } = context();
    expect(ctx.extra({ path: '/a', conversationId: 'c1', n: 2 }, new Set(['path']))).toBe('{"conversationId":"c1","n":2}');
    expect(ctx.extra({ path: '/a' }, new Set(['path']))).toBe('');
  });

  it('caps the findings of one page and says how many more there were', () => {
    const log = new FindingLog();
    for (let i = 0; i < MAX_FINDINGS_PER_PAGE + 5; i++) log.add('fractional_count', `row ${i}`);
    const drained = log.drain();
    expect(drained).toHaveLength(MAX_FINDINGS_PER_PAGE + 1);
    expect(drained.at(-1)).toEqual({ kind: 'fractional_count', detail: '5 more fractional_count findings on this page (not listed)' });
    expect(log.drain()).toEqual([]);
  });

  it('maps a feedback item of any of the three shapes, validated against the union, keeping unknown fields', () => {
    const feedback = getDataset('feedback');
    const base = { id: 'f1', path: '/a', comment: null, createdAt: '2026-10-01T00:00:00Z', source: 'agent', status: 'pending' };
    const body = {
      feedback: [
        { ...base, id: 'c', source: 'contextual', helpful: false, contact: 'me@x.io' },
        { ...base, id: 's', source: 'code_snippet', code: 'x()', filename: null, lang: 'ts' },
        { ...base, id: 'a', extraField: 1 },
      ],
      nextCursor: null,
      hasMore: false,
    };
    const parsed = schemaOf(feedback).parse(body);
    const { ctx } = context('drop');
    const view = feedback.page(parsed, ctx);
    const mapped = view.items.map((item) => feedback.row(item, ctx));
    expect(mapped.map((r) => [r.id, r.helpful, r.contact, r.code, r.lang, r.extra])).toEqual([
      ['c', false, null, null, null, ''],
      ['s', null, null, 'x()', 'ts', ''],
      ['a', null, null, null, null, '{"extraField":1}'],
    ]);
    expect(schemaOf(feedback).safeParse({ ...body, feedback: [{ ...base, status: 'lost' }] }).success).toBe(false);
  });

  it('defaults an assistant turn without responseType to answer and keeps conversationId in extra', () => {
    const assistant = getDataset('assistant');
    const turn = { id: 't1', timestamp: '2026-10-01T00:00:00Z', query: 'q', response: 'r', sources: [{ title: 'T', url: 'u' }], resolutionStatus: 'answered', queryCategory: null, pageUrl: null, conversationId: 'c9' };
    const { ctx } = context();
    const [row] = assistant.page(schemaOf(assistant).parse({ conversations: [turn], nextCursor: null, hasMore: false }), ctx).items.map((i) => assistant.row(i, ctx));
    expect(row).toMatchObject({ response_type: 'answer', sources: [{ title: 'T', url: 'u' }], extra: '{"conversationId":"c9"}' });
  });

  it('parses --dataset lists, expanding all and naming an unknown dataset', () => {
    expect(parseDatasetList('views, feedback', '--dataset', ['visitors'])).toEqual(['views', 'feedback']);
    expect(parseDatasetList('all,views', '--dataset', ['visitors', 'views'])).toEqual(['visitors', 'views']);
    expect(() => parseDatasetList('visits', '--dataset', [])).toThrow(/--dataset: unknown dataset "visits"/);
    expect(() => parseDatasetList(' , ', '--dataset', [])).toThrow(/no dataset named/);
  });
});
