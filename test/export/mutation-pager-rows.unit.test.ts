/**
 * Pager and row mapping, the cases StrykerJS showed no test held (`npm run mutation`): what a pager
 * without ids has to do, where each kind of pagination ends, and the exact findings a row leaves.
 */
import { describe, expect, it } from 'vitest';
import { FindingLog, getDataset, RowContext } from '../../src/datasets/index.js';
import { Pager } from '../../src/export/pager.js';

const window = { dateFrom: '2026-10-01', dateTo: '2026-10-02' };
const start = { position: 0, cursor: null };

describe('pager, edge by edge', () => {
  it('always has work for paged datasets, and none for a fanout given no ids', () => {
    expect(new Pager(getDataset('visitors'), window).hasWork({ position: 10_000, cursor: null })).toBe(true);
    expect(new Pager(getDataset('assistant-threads'), window).hasWork(start)).toBe(false);
  });

  it('ends a null-cursor dataset on its cursor, not on hasMore', () => {
    const searches = new Pager(getDataset('searches'), window);
    expect(searches.next(start, { items: [1], hasMore: false, nextCursor: 's2' })).toEqual({ state: { position: 1, cursor: 's2' }, done: false });
  });

  it('says which page promised more without a cursor', () => {
    const feedback = new Pager(getDataset('feedback'), window);
    expect(() => feedback.next({ position: 300, cursor: 'c' }, { items: [1], hasMore: true })).toThrow('page at position 300 says hasMore: true but has no nextCursor');
  });

  it('counts the rows of a single call', () => {
    const byPage = new Pager(getDataset('feedback-by-page'), window);
    expect(byPage.next({ position: 2, cursor: null }, { items: [1, 2, 3], hasMore: false })).toEqual({ state: { position: 5, cursor: null }, done: true });
  });
});

describe('row mapping, edge by edge', () => {
  const context = (pii: 'keep' | 'hash' | 'drop' = 'keep') => {
    const log = new FindingLog();
    return { log, ctx: new RowContext(log, pii) };
  };

  it('says where a total fell outside its bounds, and what the bounds were', () => {
    const { log, ctx } = context();
    ctx.totalBounds('visitors /a', { human: 3, ai: 5, total: 9 });
    expect(log.drain()).toEqual([{ kind: 'total_out_of_bounds', detail: 'visitors /a: total 9 outside [max(human, ai) = 5, human + ai = 8]' }]);
  });

  it('stores a missing timestamp as NULL without a finding, and quotes at most 60 characters of one that is no date', () => {
    const { log, ctx } = context();
    expect(ctx.timestamp('t', undefined)).toBeNull();
    expect(log.drain()).toEqual([]);
    expect(ctx.timestamp('feedback 7 createdAt', 'x'.repeat(100))).toBeNull();
    expect(log.drain()).toEqual([{ kind: 'invalid_text', detail: `feedback 7 createdAt: "${'x'.repeat(60)}" is not a timestamp; stored as NULL` }]);
  });

  it('keeps a missing personal field missing, as NULL', () => {
    expect(context('keep').ctx.personal(undefined)).toBeNull();
    expect(context('hash').ctx.personal(undefined)).toBeNull();
  });
});
