/**
 * The analytics knobs of the emulator: how many items a window has, and the ways the upstream may
 * legitimately surprise a client (row order, approximate counts, extra fields, broken text, short
 * pages, expiring cursors). Each knob is off by default; resolved and checked once at creation.
 */
import { parseApiDate } from './api-date.js';
import type { DatasetName as AnalyticsDataset } from '../datasets/index.js';
import { hashNumbers, hashString, unitFloat } from './seeded-random.js';
import type { WindowRef } from './window-ref.js';

/** Guards memory: a window of an item dataset is held whole in the cache. */
export const MAX_ITEMS_PER_WINDOW = 1_000_000;

export interface AnalyticsKnobs {
  /**
   * Items of a window of a dataset (rows of views, feedback items, distinct pages feedback falls on,
   * assistant turns, distinct search terms). Receives the dates as the client sent them.
   * Datasets derived from another (caller stats, threads) take no count.
   * @default each fixture's own (views: `pathsFor`); a project id ending `-N` gives N of each
   */
  itemsFor?: (dataset: AnalyticsDataset, projectId: string, dateFrom: string, dateTo: string) => number;
  /**
   * Rows in a seeded order per window (stable across the pages of one window, different per window):
   * where the spec promises an order (a fixture says so), only ties are shuffled.
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
  itemsFor: ((dataset: AnalyticsDataset, projectId: string, dateFrom: string, dateTo: string) => number) | undefined;
  shuffle: boolean;
  approximateCounts: number;
  extraFields: boolean;
  invalidText: number;
  maxPageRows: number | null;
  cursorTtlMs: number | null;
}

const DAY_MS = 86_400_000;

export function resolveAnalyticsKnobs(knobs: AnalyticsKnobs): ResolvedAnalyticsKnobs {
  const maxPageRows = knobs.maxPageRows ?? null;
  if (maxPageRows !== null && (!Number.isInteger(maxPageRows) || maxPageRows < 1)) {
    throw new RangeError(`maxPageRows must be an integer ≥ 1 or null, got ${maxPageRows}`);
  }
  const cursorTtlMs = knobs.cursorTtlMs ?? null;
  if (cursorTtlMs !== null && (!Number.isFinite(cursorTtlMs) || cursorTtlMs < 0)) {
    throw new RangeError(`cursorTtlMs must be a number ≥ 0 or null, got ${cursorTtlMs}`);
  }
  return {
    itemsFor: knobs.itemsFor,
    shuffle: knobs.shuffle ?? false,
    approximateCounts: share('approximateCounts', knobs.approximateCounts ?? 0),
    extraFields: knobs.extraFields ?? false,
    invalidText: share('invalidText', knobs.invalidText ?? 0),
    maxPageRows,
    cursorTtlMs,
  };
}

/** A fixture's default item count: a range per day ([low, high), drawn per window), growing with the days or as 1 + ln(days). */
export interface DailyItems {
  perDay: [number, number];
  /** Events (feedback, assistant turns) grow with the days; distinct things (terms, pages) as 1 + ln(days). */
  grows: 'days' | 'log';
}

/** How many items a window has when the options do not say. */
export type ItemCountDefault = DailyItems | ((projectId: string, dateFrom: string, dateTo: string) => number);

/**
 * The default item count of a window: the number ending a project id like `bench-5000`, else a
 * draw per (dataset, project, window) from the daily range.
 */
export function defaultItemCount(dataset: string, daily: DailyItems, projectId: string, dateFrom: string, dateTo: string): number {
  const explicit = /-(\d+)$/.exec(projectId);
  if (explicit) return Math.min(Number(explicit[1]), MAX_ITEMS_PER_WINDOW);
  const fromMs = parseApiDate(dateFrom) ?? 0;
  const toMs = parseApiDate(dateTo) ?? fromMs + DAY_MS;
  const days = Math.max(0, (toMs - fromMs) / DAY_MS);
  const [low, high] = daily.perDay;
  const perDay = low + (high - low) * unitFloat(hashNumbers(hashString(dataset), hashString(projectId), fromMs, toMs));
  const scale = daily.grows === 'days' ? days : 1 + Math.log(Math.max(1, days));
  return Math.min(MAX_ITEMS_PER_WINDOW, Math.round(perDay * scale));
}

/** The item count a window gets, checked (an `itemsFor` returning nonsense is a test bug worth naming). */
export function itemCountFor(
  knobs: ResolvedAnalyticsKnobs,
  dataset: AnalyticsDataset,
  ref: WindowRef,
  fallback: ItemCountDefault,
  max = MAX_ITEMS_PER_WINDOW,
): number {
  const { projectId, dateFrom, dateTo } = ref;
  // Days after today have no data yet, whatever the knobs say.
  if (ref.future) return 0;
  const value = knobs.itemsFor
    ? knobs.itemsFor(dataset, projectId, dateFrom, dateTo)
    : typeof fallback === 'function'
      ? fallback(projectId, dateFrom, dateTo)
      : defaultItemCount(dataset, fallback, projectId, dateFrom, dateTo);
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw new RangeError(`itemsFor(${dataset}) must be an integer from 0 to ${max}, got ${value}`);
  }
  return value;
}

function share(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0 || value > 1) throw new RangeError(`${name} must be between 0 and 1, got ${value}`);
  return value;
}
