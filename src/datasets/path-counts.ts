/**
 * Datasets of `{ path, human, ai, total }` rows with site `totals` on every page, paged by offset:
 * visitors and views (same shape, other meaning). Each declares itself with
 * `definePathCountsDataset`; counts are approximate (rounded, bounds recorded, never failed).
 */
import type { z } from 'zod';
import { humanAiTotal } from './counts.js';
import { defineDataset, type Dataset, type Zod } from './dataset.js';
import { isApproximateCount, isPlainObject, withQuickCheck } from './quick-check.js';
import type { RowContext } from './row-context.js';

export interface PathCounts {
  path: string;
  human: number;
  ai: number;
  total: number;
}

const known = new Set(['path', 'human', 'ai', 'total']);

function pathCountsRow(item: PathCounts, ctx: RowContext): Record<string, unknown> {
  const { human, ai, total } = item;
  // The usual row (whole counts, total within bounds) has nothing to record: no finding texts to
  // defer, so none of the closures below (four per row, ~100k rows a second through the pipeline).
  if (Number.isInteger(human) && Number.isInteger(ai) && Number.isInteger(total) && total >= Math.max(human, ai) && total <= human + ai) {
    return { path: item.path, human, ai, total, extra: ctx.extra(item, known) };
  }
  const where = () => `path ${JSON.stringify(item.path)}`;
  ctx.totalBounds(where, item);
  return {
    path: item.path,
    human: ctx.count(() => `${where()} human`, item.human),
    ai: ctx.count(() => `${where()} ai`, item.ai),
    total: ctx.count(() => `${where()} total`, item.total),
    extra: ctx.extra(item, known),
  };
}

function pathCountsTotals(totals: { human: number; ai: number; total: number }, ctx: RowContext): Record<string, unknown> {
  ctx.totalBounds('totals', totals);
  return { human: ctx.count('totals human', totals.human), ai: ctx.count('totals ai', totals.ai), total: ctx.count('totals total', totals.total) };
}

export interface PathCountsDeclaration {
  name: 'visitors' | 'views';
  /** Path under `/v1/analytics/{projectId}/`, and the key of the rows in the body. */
  endpoint: 'visitors' | 'views';
  table: string;
  totalsTable: string;
  view: string;
  requestsPerDayGuess: number;
}

const hasCounts = (value: Record<string, unknown>) => isApproximateCount(value.human) && isApproximateCount(value.ai) && isApproximateCount(value.total);

/** The usual page, accepted without zod: totals and every row with their counts, `hasMore`. */
export function isPlainPathCountsPage(endpoint: string, body: unknown): boolean {
  if (!isPlainObject(body) || typeof body.hasMore !== 'boolean' || !isPlainObject(body.totals) || !hasCounts(body.totals)) return false;
  const items = body[endpoint];
  if (!Array.isArray(items)) return false;
  for (const item of items) if (!isPlainObject(item) || typeof item.path !== 'string' || !hasCounts(item)) return false;
  return true;
}

export function pathCountsSchema(z: Zod, endpoint: string) {
  return z.looseObject({
    totals: z.looseObject(humanAiTotal(z)),
    [endpoint]: z.array(z.looseObject({ path: z.string(), ...humanAiTotal(z) })),
    hasMore: z.boolean(),
  });
}

export function definePathCountsDataset(d: PathCountsDeclaration): Dataset {
  type Body = { totals: PathCounts & object; hasMore: boolean } & Record<string, unknown>;
  return defineDataset<Body, PathCounts>({
    ...d,
    pagination: { kind: 'offset', limit: 250 },
    schema: (z) => withQuickCheck(pathCountsSchema(z, d.endpoint), (body) => isPlainPathCountsPage(d.endpoint, body)) as unknown as z.ZodType<Body>,
    page: (body, ctx) => ({ items: body[d.endpoint] as PathCounts[], hasMore: body.hasMore, totals: pathCountsTotals(body.totals, ctx) }),
    keyColumn: 'path',
    row: pathCountsRow,
  });
}
