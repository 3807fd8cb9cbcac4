/**
 * The fast path in front of a dataset's zod schema (src/datasets/quick-check.ts) may only skip zod
 * for bodies zod accepts unchanged: checked here on valid pages and on each way a page can be wrong.
 */
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { isPlainPathCountsPage, pathCountsSchema } from '../../src/datasets/path-counts.js';
import { withQuickCheck } from '../../src/datasets/quick-check.js';

const valid = () => ({
  totals: { human: 10, ai: 2, total: 11 },
  visitors: [
    { path: '/a', human: 5, ai: 1, total: 6 },
    { path: '/b', human: 2.5, ai: 0, total: 2.5, firstSeen: '2026-01-01' },
  ],
  hasMore: true,
  requestId: 'r1',
});

type Body = ReturnType<typeof valid>;
const broken: Array<[string, (b: Body) => unknown]> = [
  ['a negative count', (b) => ((b.visitors[0]!.human = -1), b)],
  ['an infinite count', (b) => JSON.parse(JSON.stringify(b).replace('"human":5', '"human":1e999'))],
  ['a count as text', (b) => ({ ...b, totals: { ...b.totals, ai: '2' } })],
  ['a null count', (b) => ({ ...b, visitors: [{ ...b.visitors[0], total: null }] })],
  ['a missing count', (b) => ({ ...b, visitors: [{ path: '/a', human: 1, ai: 1 }] })],
  ['a path that is not text', (b) => ({ ...b, visitors: [{ ...b.visitors[0], path: 7 }] })],
  ['a row that is null', (b) => ({ ...b, visitors: [null] })],
  ['a row that is a list', (b) => ({ ...b, visitors: [['/a', 1, 1, 1]] })],
  ['rows that are not a list', (b) => ({ ...b, visitors: { '/a': 1 } })],
  ['no rows', (b) => ({ totals: b.totals, hasMore: false })],
  ['totals that are a list', (b) => ({ ...b, totals: [10, 2, 11] })],
  ['no totals', (b) => ({ visitors: b.visitors, hasMore: false })],
  ['hasMore as text', (b) => ({ ...b, hasMore: 'false' })],
  ['no hasMore', (b) => ({ totals: b.totals, visitors: b.visitors })],
  ['a body that is a list', (b) => [b]],
  ['a body that is null', () => null],
  ['rows under the other endpoint', (b) => ({ totals: b.totals, views: b.visitors, hasMore: false })],
];

describe('the quick check of path-count pages', () => {
  const schema = pathCountsSchema(z, 'visitors');
  const accepts = (body: unknown) => isPlainPathCountsPage('visitors', body);

  it('accepts usual pages (fractional counts, extra fields, no rows), and zod returns them unchanged', () => {
    for (const body of [valid(), { ...valid(), visitors: [] }, { ...valid(), hasMore: false }]) {
      expect(accepts(body)).toBe(true);
      const parsed = schema.safeParse(body);
      expect(parsed.success && parsed.data).toEqual(body);
    }
  });

  it.each(broken)('refuses %s, as zod does', (_name, breakIt) => {
    const body = breakIt(valid());
    expect(accepts(body)).toBe(false);
    expect(schema.safeParse(body).success).toBe(false);
  });

  it('skips zod for a page it accepts and leaves every other body to zod, which words the error', () => {
    const inner = pathCountsSchema(z, 'visitors');
    const spy = vi.spyOn(inner, 'safeParse');
    const fast = withQuickCheck(inner, accepts);
    const body = valid();
    const ok = fast.safeParse(body);
    expect(ok).toEqual({ success: true, data: body });
    expect(spy).not.toHaveBeenCalled();
    const bad = fast.safeParse({ ...body, hasMore: 'no' });
    expect(spy).toHaveBeenCalledTimes(1);
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['hasMore']);
  });
});
