/** Rows of `{ path, human, ai, total }`, shared by visitors and views (same shape, other meaning). */
import type { RowContext } from './row-context.js';

export interface PathCounts {
  path: string;
  human: number;
  ai: number;
  total: number;
}

export const pathCounts = new Set(['path', 'human', 'ai', 'total']);

export function pathCountsRow(item: PathCounts, ctx: RowContext): Record<string, unknown> {
  const where = `path ${JSON.stringify(item.path)}`;
  ctx.totalBounds(where, item);
  return {
    path: item.path,
    human: ctx.count(`${where} human`, item.human),
    ai: ctx.count(`${where} ai`, item.ai),
    total: ctx.count(`${where} total`, item.total),
    extra: ctx.extra(item, pathCounts),
  };
}

export function pathCountsTotals(totals: { human: number; ai: number; total: number }, ctx: RowContext): Record<string, unknown> {
  ctx.totalBounds('totals', totals);
  return { human: ctx.count('totals human', totals.human), ai: ctx.count('totals ai', totals.ai), total: ctx.count('totals total', totals.total) };
}
