/**
 * The two ways the analytics endpoints page: by offset (a page holds at most `maxPageRows` rows
 * when that knob is set) and by opaque cursor (see analytics-cursor.ts). Both count positions in
 * the window's serving order; a fixture picks one.
 */
import { decodeCursor, encodeCursor, type CursorScope } from './analytics-cursor.js';
import type { AnalyticsDataset } from './analytics-dataset.js';
import type { ResolvedAnalyticsKnobs } from './analytics-knobs.js';
import { filterKey, type AnalyticsQuery } from './analytics-query.js';
import { invalidQuery, type Answer, type EmulatorContext } from './emulator-context.js';
import type { WindowRef } from './window-ref.js';

/** Rows a page of an offset endpoint serves: `limit`, capped by the server's `maxPageRows`. */
export function offsetPageSize(knobs: ResolvedAnalyticsKnobs, limit: number): number {
  return knobs.maxPageRows === null ? limit : Math.min(limit, knobs.maxPageRows);
}

export interface CursorPage<T> {
  items: T[];
  /** null on the last page. */
  nextCursor: string | null;
  hasMore: boolean;
}

export type CursorPageResult<T> = { ok: true; page: CursorPage<T> } | { ok: false; problem: string };

/** The page of `items` the query's cursor points at (the first page without one). */
export function cursorPage<T>(
  seed: number,
  knobs: ResolvedAnalyticsKnobs,
  dataset: AnalyticsDataset,
  projectId: string,
  query: AnalyticsQuery,
  items: readonly T[],
  nowMs: number,
): CursorPageResult<T> {
  const scope: CursorScope = { seed, dataset, projectId, fromMs: query.fromMs, toMs: query.toMs, filter: filterKey(query.filters) };
  let start = 0;
  if (query.cursor !== undefined) {
    const decision = decodeCursor(scope, query.cursor, nowMs, knobs.cursorTtlMs);
    if (!decision.ok) return decision;
    // Only the last page's cursor is null, so a valid cursor always points inside the window.
    if (decision.position >= items.length) return { ok: false, problem: 'cursor does not belong to this query' };
    start = decision.position;
  }
  const end = Math.min(items.length, start + query.limit);
  const hasMore = end < items.length;
  return { ok: true, page: { items: items.slice(start, end), nextCursor: hasMore ? encodeCursor(scope, end, nowMs) : null, hasMore } };
}

/** The 200 answer of a cursor endpoint: `body` shapes the page the query points at (a 400 for a bad cursor). */
export function cursorAnswer<T>(
  ctx: EmulatorContext,
  dataset: AnalyticsDataset,
  query: AnalyticsQuery,
  ref: WindowRef,
  items: readonly T[],
  body: (page: CursorPage<T>) => unknown,
): Answer {
  const result = cursorPage(ctx.options.seed, ctx.options, dataset, ref.projectId, query, items, ctx.options.now());
  if (!result.ok) return invalidQuery([result.problem]);
  return { status: 200, body: body(result.page) };
}
