/**
 * Feedback and feedback by page as served: the computed items with the knobs applied (seeded
 * order, a lone surrogate in some comments, `_sampleRate`), filters, and the per-page aggregate
 * of the filtered items (thumbs up/down from contextual items, code from code snippets, total of
 * all), ranked by total desc, then path asc.
 */
import type { ResolvedAnalyticsKnobs } from './analytics-knobs.js';
import { itemCountFor } from './analytics-knobs.js';
import type { FeedbackFilters } from './analytics-query.js';
import { computeFeedback, type FeedbackItem } from './compute-feedback.js';
import { approximation, hasInvalidText, knobKey, seededPermutation, withLoneSurrogate } from './knob-draws.js';
import type { WindowRef } from './window-ref.js';

/** One row of feedback by page. */
export interface FeedbackByPageRow {
  path: string;
  thumbsUp: number;
  thumbsDown: number;
  code: number;
  total: number;
  [extra: string]: unknown;
}

/** Every feedback item of the window (unfiltered), in serving order. */
export function servedFeedback(seed: number, knobs: ResolvedAnalyticsKnobs, ref: WindowRef): FeedbackItem[] {
  const count = itemCountFor(knobs, 'feedback', ref.projectId, ref.dateFrom, ref.dateTo);
  const pages = itemCountFor(knobs, 'feedback-by-page', ref.projectId, ref.dateFrom, ref.dateTo);
  const key = knobKey(seed, 'feedback', ref.projectId, ref.fromMs, ref.toMs, ref.revision);
  const items = computeFeedback(seed, ref.projectId, ref.fromMs, ref.toMs, count, pages, ref.revision).map((item, i) => {
    const served = { ...item };
    if (served.comment !== null && hasInvalidText(key, i, knobs.invalidText)) served.comment = withLoneSurrogate(served.comment, key, i);
    if (knobs.extraFields) served._sampleRate = 1;
    return served;
  });
  if (!knobs.shuffle) return items;
  return Array.from(seededPermutation(items.length, key), (i) => items[i]!);
}

/** The items a filter keeps (`status` matches any of the listed statuses). */
export function filterFeedback(items: readonly FeedbackItem[], filters: FeedbackFilters): FeedbackItem[] {
  if (!filters.source && !filters.statuses) return [...items];
  return items.filter(
    (item) => (!filters.source || item.source === filters.source) && (!filters.statuses || filters.statuses.includes(item.status)),
  );
}

/** Every page with feedback among `items`, ranked by total desc, then path asc, as served. */
export function feedbackByPage(seed: number, knobs: ResolvedAnalyticsKnobs, ref: WindowRef, items: readonly FeedbackItem[]): FeedbackByPageRow[] {
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

/** The one page a by-page call serves: the top `limit`, in a seeded order under `shuffle`. */
export function feedbackByPagePage(seed: number, knobs: ResolvedAnalyticsKnobs, ref: WindowRef, ranked: readonly FeedbackByPageRow[], limit: number): FeedbackByPageRow[] {
  const page = ranked.slice(0, limit);
  if (!knobs.shuffle) return page;
  const key = knobKey(seed, 'feedback-by-page', ref.projectId, ref.fromMs, ref.toMs, ref.revision);
  return Array.from(seededPermutation(page.length, key), (i) => page[i]!);
}
