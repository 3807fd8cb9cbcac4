/**
 * Feedback by page: `GET feedback/by-page`, one call per window. The window's feedback (after the
 * `source` and `status` filters) per page: thumbs up/down from contextual items, code from code
 * snippets, total of all, ranked by total desc, then path asc. A call with `limit` L serves the
 * top L (in a seeded order under `shuffle`) with `hasMore` = more pages than that (no way to get
 * them). Knobs: half-unit counts under approximate counts, `_sampleRate`.
 */
import type { WindowFixture } from '../analytics-dataset.js';
import type { ResolvedAnalyticsKnobs } from '../analytics-knobs.js';
import { approximation, knobKey, seededPermutation } from '../knob-draws.js';
import type { WindowRef } from '../window-ref.js';
import { cachedFeedback, filterFeedback, servedFeedback, type FeedbackItem } from './feedback.js';

/** One row of feedback by page. */
export interface FeedbackByPageRow {
  path: string;
  thumbsUp: number;
  thumbsDown: number;
  code: number;
  total: number;
  [extra: string]: unknown;
}

export const feedbackByPage: WindowFixture<{ items: FeedbackByPageRow[] }> = {
  kind: 'window',
  path: 'feedback/by-page',
  query: { limit: { min: 1, max: 100, default: 10, integer: false }, feedbackFilters: true },
  answer: (ctx, query, ref) => {
    const ranked = rankPages(ctx.options.seed, ctx.options, ref, filterFeedback(cachedFeedback(ctx, ref), query.filters));
    const feedback = topPages(ctx.options.seed, ctx.options, ref, ranked, query.limit);
    return { status: 200, body: { feedback, hasMore: ranked.length > query.limit } };
  },
  truth: (options, ref, filters) => ({ items: rankPages(options.seed, options, ref, filterFeedback(servedFeedback(options.seed, options, ref), filters)) }),
};

/** Every page with feedback among `items`, ranked by total desc, then path asc, as served. */
function rankPages(seed: number, knobs: ResolvedAnalyticsKnobs, ref: WindowRef, items: readonly FeedbackItem[]): FeedbackByPageRow[] {
  const byPath = new Map<string, FeedbackByPageRow>();
  for (const item of items) {
    let row = byPath.get(item.path);
    if (!row) byPath.set(item.path, (row = { path: item.path, thumbsUp: 0, thumbsDown: 0, code: 0, total: 0 }));
    if (item.source === 'contextual') {
      if (item.helpful) row.thumbsUp++;
      else row.thumbsDown++;
    }
    if (item.source === 'code_snippet') row.code++;
    row.total++;
  }
  const key = knobKey(seed, 'feedback-by-page', ref.projectId, ref.fromMs, ref.toMs, ref.revision);
  const ranked = [...byPath.values()].sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : 1));
  return ranked.map((row, i) => {
    const served: FeedbackByPageRow =
      approximation(key, i, knobs.approximateCounts) === 'exact' ? row : { ...row, thumbsUp: row.thumbsUp + 0.5, total: row.total + 0.5 };
    if (knobs.extraFields) served._sampleRate = 1;
    return served;
  });
}

/** The one page a call serves: the top `limit`, in a seeded order under `shuffle`. */
function topPages(seed: number, knobs: ResolvedAnalyticsKnobs, ref: WindowRef, ranked: readonly FeedbackByPageRow[], limit: number): FeedbackByPageRow[] {
  const page = ranked.slice(0, limit);
  if (!knobs.shuffle) return page;
  const key = knobKey(seed, 'feedback-by-page', ref.projectId, ref.fromMs, ref.toMs, ref.revision);
  return Array.from(seededPermutation(page.length, key), (i) => page[i]!);
}
