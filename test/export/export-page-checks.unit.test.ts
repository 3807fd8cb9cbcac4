import { describe, expect, it } from 'vitest';
import { PaginationError, UnstableWindowError } from '../../src/export/errors.js';
import { PageChecks } from '../../src/export/page-checks.js';

const rows = (...paths: string[]) => paths.map((path) => ({ path }));
const page = (paths: string[], more = true, extra: object = {}) => ({ items: paths, hasMore: more, ...extra });
const offsetChecks = (totals?: Record<string, unknown>) => new PageChecks({ limit: 3, keyColumn: 'path', paginated: true }, totals);

describe('page checks', () => {
  it('refuses a page longer than its limit and an empty page that says hasMore', () => {
    expect(() => offsetChecks().check(page(['a', 'b', 'c', 'd']), rows('a', 'b', 'c', 'd'), 0, null)).toThrow(/4 rows, more than the limit 3/);
    expect(() => offsetChecks().check(page([]), [], 0, null)).toThrow(PaginationError);
    expect(() => offsetChecks().check(page([], false), [], 0, null)).not.toThrow();
    // A one-call answer may be empty and still say it was cut.
    expect(() => new PageChecks({ limit: 3, keyColumn: 'path', paginated: false }).check(page([]), [], 0, null)).not.toThrow();
  });

  it('takes an empty cursor page that hands out a new cursor as progress, and refuses one that hands out its own', () => {
    const checks = new PageChecks({ limit: 3, keyColumn: 'id', paginated: true, cursorPaged: true });
    checks.check(page(['a'], true, { nextCursor: 'c1' }), [{ id: 'a' }], 0, null);
    expect(() => checks.check(page([], true, { nextCursor: 'c2' }), [], 1, 'c1')).not.toThrow();
    expect(() => checks.check(page(['b'], false, { nextCursor: null }), [{ id: 'b' }], 1, 'c2')).not.toThrow();
    const stuck = new PageChecks({ limit: 3, keyColumn: 'id', paginated: true, cursorPaged: true });
    expect(() => stuck.check(page([], true, { nextCursor: 'c1' }), [], 0, 'c1')).toThrow(/cursor "c1" was handed out twice/);
  });

  it('finds a key seen twice in any order of rows, on the same page or the one before it', () => {
    expect(() => offsetChecks().check(page(['a', 'b', 'a']), rows('a', 'b', 'a'), 0, null)).toThrow(UnstableWindowError);
    const checks = offsetChecks();
    checks.check(page(['c', 'a', 'b']), rows('c', 'a', 'b'), 0, null);
    expect(() => checks.check(page(['x', 'y', 'b']), rows('x', 'y', 'b'), 3, null)).toThrow(/path "b" seen twice/);
  });

  it('with keyWith, tells items apart by the key and those columns together: turns of one conversation pass, the same turn twice does not', () => {
    const turns = (...pairs: [string, string][]) => pairs.map(([id, timestamp]) => ({ id, timestamp }));
    const checks = () => new PageChecks({ limit: 3, keyColumn: 'id', keyWith: ['timestamp'], paginated: true, cursorPaged: true });
    const shared = turns(['C1', 't1'], ['C1', 't2'], ['C2', 't1']);
    expect(() => checks().check(page(['x', 'y', 'z']), shared, 0, null)).not.toThrow();
    const twice = turns(['C1', 't1'], ['C2', 't1'], ['C1', 't1']);
    expect(() => checks().check(page(['x', 'y', 'z']), twice, 0, null)).toThrow('id, timestamp "[\\"C1\\",\\"t1\\"]" seen twice in one run (position 0)');
  });

  it('still compares the next page with the last page of a loaded batch, and forgets the rest (the warehouse checks those)', () => {
    const checks = offsetChecks();
    checks.check(page(['a', 'b', 'c']), rows('a', 'b', 'c'), 0, null);
    checks.check(page(['d', 'e', 'f']), rows('d', 'e', 'f'), 3, null);
    checks.batchLoaded();
    expect(() => checks.check(page(['g', 'a', 'h']), rows('g', 'a', 'h'), 6, null)).not.toThrow();
    expect(() => checks.check(page(['i', 'e', 'j']), rows('i', 'e', 'j'), 9, null)).toThrow(UnstableWindowError);
  });

  it('refuses a page that repeats the previous one', () => {
    const checks = offsetChecks();
    checks.check(page(['a', 'b', 'c']), rows('a', 'b', 'c'), 0, null);
    expect(() => checks.check(page(['a', 'b', 'c']), rows('a', 'b', 'c'), 3, null)).toThrow(/repeats the previous page/);
  });

  it('makes the run unstable when the window totals change between pages, and keeps the first ones', () => {
    const checks = offsetChecks({ human: 5, total: 7 });
    expect(() => checks.check(page(['a'], true, { totals: { human: 5, total: 7 } }), rows('a'), 0, null)).not.toThrow();
    expect(() => checks.check(page(['b'], true, { totals: { human: 5, total: 8 } }), rows('b'), 1, null)).toThrow(/totals changed/);
    expect(checks.expectedTotals).toEqual({ human: 5, total: 7 });
    const fresh = offsetChecks();
    fresh.check(page(['a'], true, { totals: { human: 1, total: 1 } }), rows('a'), 0, null);
    expect(fresh.expectedTotals).toEqual({ human: 1, total: 1 });
  });

  it('refuses a cursor handed out twice before it is used again, but not on a last page', () => {
    const checks = new PageChecks({ limit: 3, keyColumn: 'id', paginated: true });
    const ids = (...xs: string[]) => xs.map((id) => ({ id }));
    checks.check({ items: ['1'], hasMore: true, nextCursor: 'X' }, ids('1'), 0, null);
    checks.check({ items: ['2'], hasMore: true, nextCursor: 'Y' }, ids('2'), 1, 'X');
    expect(() => checks.check({ items: ['3'], hasMore: true, nextCursor: 'X' }, ids('3'), 2, 'Y')).toThrow(/cursor "X" was handed out twice/);
    const self = new PageChecks({ limit: 3, keyColumn: 'id', paginated: true });
    expect(() => self.check({ items: ['1'], hasMore: true, nextCursor: 'Z' }, ids('1'), 0, 'Z')).toThrow(PaginationError);
    const last = new PageChecks({ limit: 3, keyColumn: 'id', paginated: true });
    last.check({ items: ['1'], hasMore: true, nextCursor: 'X' }, ids('1'), 0, null);
    expect(() => last.check({ items: ['2'], hasMore: false, nextCursor: 'X' }, ids('2'), 1, 'X')).not.toThrow();
  });

  it('calls the same keys again on a one-call page (a fanout thread) a key seen twice, not a repeated page', () => {
    const checks = new PageChecks({ limit: undefined, keyColumn: 'path', paginated: false });
    checks.check(page(['a', 'b'], false), rows('a', 'b'), 0, null);
    expect(() => checks.check(page(['a', 'b'], false), rows('a', 'b'), 1, null)).toThrow(UnstableWindowError);
  });

  it('tells keys apart whatever they contain: an empty key first, or keys that would join into another', () => {
    expect(() => offsetChecks().check(page(['']), rows(''), 0, null)).not.toThrow();
    const checks = offsetChecks();
    checks.check(page(['a', 'b']), rows('a', 'b'), 0, null);
    expect(() => checks.check(page(['a\u0001b']), rows('a\u0001b'), 2, null)).not.toThrow();
  });
});
