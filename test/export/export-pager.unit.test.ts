import { describe, expect, it } from 'vitest';
import { getDataset } from '../../src/datasets/index.js';
import { PaginationError } from '../../src/export/errors.js';
import { Pager } from '../../src/export/pager.js';

const window = { dateFrom: '2026-10-01', dateTo: '2026-10-02' };
const items = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('pager', () => {
  it('asks offset datasets for the largest limit at the rows received so far, and only they fetch ahead', () => {
    const pager = new Pager(getDataset('visitors'), window);
    expect(pager.canFetchAhead).toBe(true);
    expect(pager.limit).toBe(250);
    expect(pager.request({ position: 0, cursor: null })).toEqual({
      endpoint: 'visitors',
      params: { dateFrom: '2026-10-01', dateTo: '2026-10-02', limit: '250', offset: '0' },
      position: 0,
    });
    // A short page moves the next offset by the rows it held, not by the limit.
    expect(pager.next({ position: 500, cursor: null }, { items: items(100), hasMore: true })).toEqual({ state: { position: 600, cursor: null }, done: false });
    expect(pager.next({ position: 600, cursor: null }, { items: items(3), hasMore: false }).done).toBe(true);
    expect(new Pager(getDataset('feedback'), window).canFetchAhead).toBe(false);
  });

  it('passes the previous cursor, sends none on the first page, and ends on hasMore or on a null cursor as the endpoint says', () => {
    const feedback = new Pager(getDataset('feedback'), window);
    expect(feedback.request({ position: 0, cursor: null }).params).toEqual({ dateFrom: '2026-10-01', dateTo: '2026-10-02', limit: '100' });
    expect(feedback.request({ position: 100, cursor: 'c1' }).params.cursor).toBe('c1');
    expect(feedback.next({ position: 0, cursor: null }, { items: items(100), hasMore: true, nextCursor: 'c1' })).toEqual({ state: { position: 100, cursor: 'c1' }, done: false });
    expect(feedback.next({ position: 100, cursor: 'c1' }, { items: items(5), hasMore: false, nextCursor: 'c2' })).toEqual({ state: { position: 105, cursor: null }, done: true });
    expect(() => feedback.next({ position: 0, cursor: null }, { items: items(1), hasMore: true, nextCursor: null })).toThrow(PaginationError);

    const searches = new Pager(getDataset('searches'), window);
    expect(searches.limit).toBe(100);
    expect(searches.next({ position: 0, cursor: null }, { items: items(100), hasMore: true, nextCursor: 's1' }).done).toBe(false);
    expect(searches.next({ position: 100, cursor: 's1' }, { items: items(7), hasMore: false, nextCursor: null }).done).toBe(true);
    expect(new Pager(getDataset('assistant'), window).limit).toBe(1000);
  });

  it('makes one call for a single-call dataset, asking for its largest limit where it takes one', () => {
    const byPage = new Pager(getDataset('feedback-by-page'), window);
    expect(byPage.request({ position: 0, cursor: null }).params).toEqual({ dateFrom: '2026-10-01', dateTo: '2026-10-02', limit: '100' });
    expect(byPage.next({ position: 0, cursor: null }, { items: items(100), hasMore: true }).done).toBe(true);
    const stats = new Pager(getDataset('assistant-caller-stats'), window);
    expect(stats.request({ position: 0, cursor: null })).toEqual({ endpoint: 'assistant/caller-stats', params: { dateFrom: '2026-10-01', dateTo: '2026-10-02' }, position: 0 });
  });

  it('asks a fanout dataset for one id per request, in order, and has no work without ids', () => {
    const threads = new Pager(getDataset('assistant-threads'), window, ['t1', 't2']);
    expect(threads.hasWork({ position: 0, cursor: null })).toBe(true);
    expect(threads.request({ position: 1, cursor: null })).toEqual({ endpoint: 'assistant/threads/t2', params: {}, position: 1, id: 't2' });
    expect(threads.next({ position: 0, cursor: null }, { items: items(4), hasMore: false })).toEqual({ state: { position: 1, cursor: null }, done: false });
    expect(threads.next({ position: 1, cursor: null }, { items: [], hasMore: false }).done).toBe(true);
    expect(threads.hasWork({ position: 2, cursor: null })).toBe(false);
    expect(new Pager(getDataset('assistant-threads'), window, []).hasWork({ position: 0, cursor: null })).toBe(false);
  });
});
