/**
 * Page checks, the cases StrykerJS showed no test held (`npm run mutation`): the messages name what
 * was wrong without flooding the log, checks that do not apply stay quiet, and `sawEveryKey` says
 * whether the warehouse must look for keys stored twice.
 */
import { describe, expect, it } from 'vitest';
import { UnstableWindowError } from '../../src/export/errors.js';
import { PageChecks } from '../../src/export/page-checks.js';

const rows = (...paths: string[]) => paths.map((path) => ({ path }));
const page = (paths: string[], more = true, extra: object = {}) => ({ items: paths, hasMore: more, ...extra });
const offsetChecks = (totals?: Record<string, unknown>) => new PageChecks({ limit: 3, keyColumn: 'path', paginated: true }, totals);

describe('page checks, edge by edge', () => {
  it('says why an empty page with hasMore is refused', () => {
    expect(() => offsetChecks().check(page([]), [], 7, null)).toThrow('page at position 7 is empty but says hasMore: true');
  });

  it('holds the first page to the totals it was given before the run', () => {
    const checks = offsetChecks({ human: 5, total: 7 });
    expect(checks.expectedTotals).toEqual({ human: 5, total: 7 });
    expect(() => checks.check(page(['a'], true, { totals: { human: 5, total: 8 } }), rows('a'), 0, null)).toThrow(UnstableWindowError);
  });

  it('accepts a page without totals in a run that has them', () => {
    const checks = offsetChecks({ human: 5, total: 7 });
    expect(() => checks.check(page(['a']), rows('a'), 0, null)).not.toThrow();
    expect(checks.expectedTotals).toEqual({ human: 5, total: 7 });
  });

  it('makes the run unstable when the totals gain a field', () => {
    const checks = offsetChecks({ human: 5 });
    expect(() => checks.check(page(['a'], true, { totals: { human: 5, bots: 1 } }), rows('a'), 0, null)).toThrow(/totals changed/);
  });

  it('checks no keys when the dataset has no key column', () => {
    const checks = new PageChecks({ limit: 3, keyColumn: undefined, paginated: true });
    expect(() => checks.check(page(['a', 'b']), rows('a', 'b'), 0, null)).not.toThrow();
    expect(() => checks.check(page(['a', 'b']), rows('a', 'b'), 2, null)).not.toThrow();
  });

  it('tells a page of two keys from a page of one key that joins them', () => {
    const checks = offsetChecks();
    checks.check(page(['a', 'b']), rows('a', 'b'), 0, null);
    expect(() => checks.check(page(['ab']), rows('ab'), 2, null)).not.toThrow();
  });

  it('quotes at most 40 characters of a repeated cursor and 80 of a repeated key', () => {
    const cursor = 'c'.repeat(100);
    const checks = new PageChecks({ limit: 3, keyColumn: 'id', paginated: true });
    checks.check({ items: ['1'], hasMore: true, nextCursor: cursor }, [{ id: '1' }], 0, null);
    expect(() => checks.check({ items: ['2'], hasMore: true, nextCursor: cursor }, [{ id: '2' }], 1, cursor)).toThrow(
      `cursor "${'c'.repeat(40)}" was handed out twice (page at position 1)`,
    );
    const key = 'k'.repeat(100);
    expect(() => offsetChecks().check(page([key, key]), rows(key, key), 0, null)).toThrow(`path "${'k'.repeat(80)}" seen twice in one run (position 0)`);
  });

  it('saw every key while each loaded batch held one page, and not once a batch of two pages was let go', () => {
    const checks = offsetChecks();
    expect(checks.sawEveryKey).toBe(true);
    checks.batchLoaded();
    expect(checks.sawEveryKey).toBe(true);
    checks.check(page(['a', 'b', 'c']), rows('a', 'b', 'c'), 0, null);
    checks.batchLoaded();
    expect(checks.sawEveryKey).toBe(true);
    checks.check(page(['d', 'e']), rows('d', 'e'), 3, null);
    checks.batchLoaded();
    expect(checks.sawEveryKey).toBe(false);
  });
});
