/**
 * Feedback: `GET feedback`, one page by cursor of a window's feedback, filtered by `source` and
 * `status` (feedback by page aggregates the same items).
 *
 * Data: items of one window, newest first: the three shapes of the spec's anyOf (`contextual`
 * adds `helpful` and `contact`, `code_snippet` adds `code`, `filename`, `lang`, `agent` and
 * `thumbs_only` carry the common fields only), with the nullable fields sometimes null. Items fall
 * on as many distinct pages as feedback by page counts (the first items one each, the rest mostly
 * on the popular ones), so feedback by page has exactly that many rows when nothing is filtered.
 * Knobs: seeded order, a lone surrogate in some comments, `_sampleRate`.
 */
import type { WindowFixture } from '../analytics-dataset.js';
import { itemCountFor, type DailyItems, type ResolvedAnalyticsKnobs } from '../analytics-knobs.js';
import { cursorAnswer } from '../analytics-paging.js';
import type { FeedbackFilters, FeedbackSource, FeedbackStatus } from '../analytics-query.js';
import { DocsPathSpace } from '../docs-paths.js';
import type { EmulatorContext } from '../emulator-context.js';
import { hasInvalidText, knobKey, seededPermutation, withLoneSurrogate } from '../knob-draws.js';
import { hash2, hashNumbers, hashString, unitFloat } from '../seeded-random.js';
import { CODE_SNIPPETS, FEEDBACK_COMMENTS, FILENAMES, LANGUAGES, pick } from '../text-samples.js';
import type { WindowRef } from '../window-ref.js';

const DAILY: DailyItems = { perDay: [30, 80], grows: 'days' };
/** Distinct pages the items fall on (feedback by page's rows). */
const PAGES_DAILY: DailyItems = { perDay: [20, 60], grows: 'log' };

export const feedback: WindowFixture<{ items: FeedbackItem[] }> = {
  kind: 'window',
  path: 'feedback',
  query: { limit: { min: 1, max: 100, default: 50, integer: false }, cursor: true, feedbackFilters: true },
  answer: (ctx, query, ref) =>
    cursorAnswer(ctx, 'feedback', query, ref, filterFeedback(cachedFeedback(ctx, ref), query.filters), (page) => ({
      feedback: page.items,
      nextCursor: page.nextCursor,
      hasMore: page.hasMore,
    })),
  truth: (options, ref, filters) => ({ items: filterFeedback(servedFeedback(options.seed, options, ref), filters) }),
};

/** Every feedback item of the window (unfiltered), in serving order, from the emulator's cache. */
export function cachedFeedback(ctx: EmulatorContext, ref: WindowRef): FeedbackItem[] {
  return ctx.windows.cached('feedback', ref, () => {
    const items = servedFeedback(ctx.options.seed, ctx.options, ref);
    return { value: items, weight: items.length * 8 };
  });
}

/** Every feedback item of the window (unfiltered), in serving order. */
export function servedFeedback(seed: number, knobs: ResolvedAnalyticsKnobs, ref: WindowRef): FeedbackItem[] {
  const count = itemCountFor(knobs, 'feedback', ref, DAILY);
  const pages = itemCountFor(knobs, 'feedback-by-page', ref, PAGES_DAILY);
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

/** One feedback item as the API serves it (fields of the other shapes absent). */
export interface FeedbackItem {
  id: string;
  path: string;
  comment: string | null;
  createdAt: string | null;
  source: FeedbackSource;
  status: FeedbackStatus;
  helpful?: boolean;
  contact?: string | null;
  code?: string;
  filename?: string | null;
  lang?: string | null;
  [extra: string]: unknown;
}

const FEEDBACK_SALT = 0xfeedb;
/** Cumulative shares of the sources and statuses. */
const SOURCES: [FeedbackSource, number][] = [['contextual', 0.45], ['thumbs_only', 0.7], ['code_snippet', 0.9], ['agent', 1]];
const STATUSES: [FeedbackStatus, number][] = [['pending', 0.5], ['in_progress', 0.6], ['resolved', 0.85], ['dismissed', 1]];

function computeFeedback(
  seed: number,
  projectId: string,
  fromMs: number,
  toMs: number,
  count: number,
  pageCount: number,
  revision: number,
): FeedbackItem[] {
  const key = hashNumbers(seed, hashString(projectId), fromMs, toMs, revision, FEEDBACK_SALT);
  const pages = count === 0 ? 0 : Math.max(1, Math.min(pageCount, count));
  const paths = new DocsPathSpace(seed, projectId, Math.max(1, pages));
  const drafts: { atMs: number; item: FeedbackItem }[] = [];
  for (let i = 0; i < count; i++) {
    const k = hash2(key, i);
    const draw = (n: number) => unitFloat(hash2(k, n));
    const atMs = fromMs + Math.floor(draw(1) * (toMs - fromMs));
    const source = cumulative(SOURCES, draw(2));
    const page = i < pages ? i : Math.floor(pages * draw(3) ** 2);
    const item: FeedbackItem = {
      id: objectId(atMs, hash2(k, 4), i),
      path: paths.name(page),
      comment: draw(5) < (source === 'thumbs_only' ? 0.85 : 0.1) ? null : pick(FEEDBACK_COMMENTS, hash2(k, 6)),
      createdAt: draw(7) < 0.03 ? null : new Date(atMs).toISOString(),
      source,
      status: cumulative(STATUSES, draw(8)),
    };
    if (source === 'contextual') {
      item.helpful = draw(9) < 0.65;
      item.contact = draw(10) < 0.8 ? null : `reader${hash2(k, 11) % 10_000}@example.com`;
    } else if (source === 'code_snippet') {
      item.code = pick(CODE_SNIPPETS, hash2(k, 12));
      item.filename = draw(13) < 0.3 ? null : pick(FILENAMES, hash2(k, 14));
      item.lang = draw(15) < 0.1 ? null : pick(LANGUAGES, hash2(k, 16));
    }
    drafts.push({ atMs, item });
  }
  drafts.sort((a, b) => b.atMs - a.atMs || (a.item.id < b.item.id ? -1 : 1));
  return drafts.map((draft) => draft.item);
}

function cumulative<T>(table: [T, number][], u: number): T {
  return table.find(([, upTo]) => u < upTo)?.[0] ?? table.at(-1)![0];
}

/** A 24-hex id like a MongoDB ObjectId: seconds, a hash, and the item number (unique in the window). */
function objectId(atMs: number, hash: number, item: number): string {
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
  return hex(Math.floor(atMs / 1000)) + hex(hash) + hex(item);
}
