/**
 * The analytics knobs of the emulator: how many items a window has, and the ways the upstream may
 * legitimately surprise a client (row order, approximate counts, extra fields, broken text, short
 * pages, expiring cursors). Each knob is off by default; resolved and checked once at creation.
 */
import { parseApiDate } from './api-date.js';
import { MAX_PATHS_PER_WINDOW } from './compute-window.js';
import type { ItemDataset } from './analytics-dataset.js';
import { hashNumbers, hashString, unitFloat } from './seeded-random.js';

/** Guards memory: a window of an item dataset is held whole in the cache. */
export const MAX_ITEMS_PER_WINDOW = 1_000_000;

export interface AnalyticsKnobs {
  /**
   * Items of a window of a dataset (rows of views, feedback items, distinct pages feedback falls on,
   * assistant turns, distinct search terms). Receives the dates as the client sent them.
   * @default defaultItemCount (views: `pathsFor`); a project id ending `-N` gives N of each
   */
  itemsFor?: (dataset: ItemDataset, projectId: string, dateFrom: string, dateTo: string) => number;
  /**
   * Rows in a seeded order per window (stable across the pages of one window, different per window):
   * no endpoint but searches promises an order. Searches stay by hits desc; only ties are shuffled.
   * @default false
   */
  shuffle?: boolean;
  /**
   * Share (0–1) of count rows served approximate: half of them with a `total` outside
   * `max(human, ai) … human + ai` (visitors, views: rows and window totals), half with non-whole
   * counts like 12.5 (visitors, views, feedback by page, caller stats, search hits). @default 0
   */
  approximateCounts?: number;
  /**
   * Fields beyond the schema: `conversationId` on assistant rows (shared by the turns of a
   * conversation: the id of its first turn), `_sampleRate` on every other item, on caller stats
   * and on thread messages. Without it assistant rows carry no conversationId, and each row is
   * its own thread of two messages. @default false
   */
  extraFields?: boolean;
  /** Share (0–1) of text items with a lone UTF-16 surrogate (\ud800) in a text field. @default 0 */
  invalidText?: number;
  /**
   * The server's page-size cap on the offset endpoints (visitors, views): a page holds at most this
   * many rows whatever the `limit`, with `hasMore` true, so a client must advance `offset` by the
   * rows it received. null = no cap. @default null
   */
  maxPageRows?: number | null;
  /** Age after which a cursor is refused (400); null = never. @default null */
  cursorTtlMs?: number | null;
}

export interface ResolvedAnalyticsKnobs {
  itemsFor: (dataset: ItemDataset, projectId: string, dateFrom: string, dateTo: string) => number;
  shuffle: boolean;
  approximateCounts: number;
  extraFields: boolean;
  invalidText: number;
  maxPageRows: number | null;
  cursorTtlMs: number | null;
}

const DAY_MS = 86_400_000;

export function resolveAnalyticsKnobs(
  knobs: AnalyticsKnobs,
  pathsFor: (projectId: string, dateFrom: string, dateTo: string) => number,
): ResolvedAnalyticsKnobs {
  const maxPageRows = knobs.maxPageRows ?? null;
  if (maxPageRows !== null && (!Number.isInteger(maxPageRows) || maxPageRows < 1)) {
    throw new RangeError(`maxPageRows must be an integer ≥ 1 or null, got ${maxPageRows}`);
  }
  const cursorTtlMs = knobs.cursorTtlMs ?? null;
  if (cursorTtlMs !== null && (!Number.isFinite(cursorTtlMs) || cursorTtlMs < 0)) {
    throw new RangeError(`cursorTtlMs must be a number ≥ 0 or null, got ${cursorTtlMs}`);
  }
  return {
    itemsFor: knobs.itemsFor ?? ((dataset, projectId, dateFrom, dateTo) =>
      dataset === 'views' ? pathsFor(projectId, dateFrom, dateTo) : defaultItemCount(dataset, projectId, dateFrom, dateTo)),
    shuffle: knobs.shuffle ?? false,
    approximateCounts: share('approximateCounts', knobs.approximateCounts ?? 0),
    extraFields: knobs.extraFields ?? false,
    invalidText: share('invalidText', knobs.invalidText ?? 0),
    maxPageRows,
    cursorTtlMs,
  };
}

/** Per-day ranges of the defaults (small, so a demo fills quickly): [low, high) drawn per window. */
const DAILY_RANGE: Record<Exclude<ItemDataset, 'views'>, [number, number]> = {
  feedback: [30, 80],
  assistant: [50, 200],
  searches: [100, 300],
  'feedback-by-page': [20, 60],
};

/**
 * The default item count of a window: the number ending a project id like `bench-5000`, else a
 * draw per (dataset, project, window) from the daily range. Events (feedback, assistant turns)
 * grow with the days; distinct things (search terms, pages) as 1 + ln(days).
 */
export function defaultItemCount(dataset: Exclude<ItemDataset, 'views'>, projectId: string, dateFrom: string, dateTo: string): number {
  const explicit = /-(\d+)$/.exec(projectId);
  if (explicit) return Math.min(Number(explicit[1]), MAX_ITEMS_PER_WINDOW);
  const fromMs = parseApiDate(dateFrom) ?? 0;
  const toMs = parseApiDate(dateTo) ?? fromMs + DAY_MS;
  const days = Math.max(0, (toMs - fromMs) / DAY_MS);
  const [low, high] = DAILY_RANGE[dataset];
  const perDay = low + (high - low) * unitFloat(hashNumbers(hashString(dataset), hashString(projectId), fromMs, toMs));
  const scale = dataset === 'feedback' || dataset === 'assistant' ? days : 1 + Math.log(Math.max(1, days));
  return Math.min(MAX_ITEMS_PER_WINDOW, Math.round(perDay * scale));
}

/** The item count a window gets, checked (an `itemsFor` returning nonsense is a test bug worth naming). */
export function itemCountFor(knobs: ResolvedAnalyticsKnobs, dataset: ItemDataset, projectId: string, dateFrom: string, dateTo: string): number {
  const value = knobs.itemsFor(dataset, projectId, dateFrom, dateTo);
  const max = dataset === 'views' ? MAX_PATHS_PER_WINDOW : MAX_ITEMS_PER_WINDOW;
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw new RangeError(`itemsFor(${dataset}) must be an integer from 0 to ${max}, got ${value}`);
  }
  return value;
}

function share(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0 || value > 1) throw new RangeError(`${name} must be between 0 and 1, got ${value}`);
  return value;
}
