/**
 * Ground truth of the analytics endpoints for tests: exactly what the emulator with these options
 * serves for a window, computed without a server. Pure: the same arguments give the same answer.
 *
 * `analyticsTruth(options, dataset, projectId, dateFrom, dateTo, { revision?, filters? })` returns
 * `{ items, totals? }`, spec-shaped as served (knobs applied: approximate counts, extra fields,
 * lone surrogates), `items` in serving order:
 * - `visitors`, `views`: every row across all pages (concatenate pages at any limit, and under
 *   `maxPageRows` too); `totals` `{ human, ai, total }` as on every page.
 * - `feedback`: every item across all cursor pages (after the `source` / `status` filters, if given).
 * - `feedback-by-page`: every page with feedback, ranked by total desc, then path asc. A call with
 *   `limit` L serves the first L of them (in a seeded order under `shuffle`) with `hasMore` =
 *   `items.length > L`.
 * - `assistant`: every conversation row across all cursor pages.
 * - `assistant-caller-stats`: no items; `totals` is the answer `{ web, api, other, total }`.
 * - `searches`: every term across all pages; `totals` `{ totalSearches }`.
 * - `assistant-threads`: every thread the window's assistant rows name (by `conversationId` with
 *   `extraFields`, else by row id), each `{ threadId, createdAt, messages }` as the thread endpoint
 *   answers it. `analyticsThread` gives one by id.
 *
 * `revision` is the project's data revision (`control.mutate` bumps it; `control.truth` passes
 * the current one). @default 0
 */
import type { AnalyticsDataset } from './analytics-dataset.js';
import { itemCountFor } from './analytics-knobs.js';
import { parseApiDate } from './api-date.js';
import type { FeedbackFilters } from './analytics-query.js';
import type { FeedbackItem } from './compute-feedback.js';
import type { AssistantRow } from './compute-assistant.js';
import type { SearchRow } from './compute-searches.js';
import { computeCompactWindow, type SiteTotals } from './compute-window.js';
import { pathCountFor, resolveEmulatorOptions, type EmulatorOptions, type ResolvedEmulatorOptions } from './emulator-options.js';
import { knobKey } from './knob-draws.js';
import { servedAssistant, type AssistantThread, type CallerStats } from './served-assistant.js';
import { feedbackByPage, filterFeedback, servedFeedback, type FeedbackByPageRow } from './served-feedback.js';
import { servedSearches } from './served-searches.js';
import { TrafficWindow, type TrafficRow } from './traffic-window.js';
import type { WindowRef } from './window-ref.js';

export interface TruthByDataset {
  visitors: { items: TrafficRow[]; totals: SiteTotals };
  views: { items: TrafficRow[]; totals: SiteTotals };
  feedback: { items: FeedbackItem[] };
  'feedback-by-page': { items: FeedbackByPageRow[] };
  assistant: { items: AssistantRow[] };
  'assistant-caller-stats': { items: []; totals: CallerStats };
  searches: { items: SearchRow[]; totals: { totalSearches: number } };
  'assistant-threads': { items: AssistantThread[] };
}

export interface TruthOptions {
  /** The project's data revision. @default 0 */
  revision?: number;
  /** Feedback filters (feedback and feedback-by-page only). @default none */
  filters?: FeedbackFilters;
}

export function analyticsTruth<D extends AnalyticsDataset>(
  options: EmulatorOptions,
  dataset: D,
  projectId: string,
  dateFrom: string,
  dateTo: string,
  truthOptions: TruthOptions = {},
): TruthByDataset[D] {
  const resolved = resolve(options);
  const ref = windowRef(projectId, dateFrom, dateTo, truthOptions.revision ?? 0);
  const seed = resolved.seed;
  const filters = truthOptions.filters ?? {};
  const truth = {
    visitors: () => traffic(resolved, 'visitors', ref, pathCountFor(resolved, projectId, dateFrom, dateTo)),
    views: () => traffic(resolved, 'views', ref, itemCountFor(resolved, 'views', projectId, dateFrom, dateTo)),
    feedback: () => ({ items: filterFeedback(servedFeedback(seed, resolved, ref), filters) }),
    'feedback-by-page': () => ({ items: feedbackByPage(seed, resolved, ref, filterFeedback(servedFeedback(seed, resolved, ref), filters)) }),
    assistant: () => ({ items: servedAssistant(seed, resolved, ref).conversations }),
    'assistant-caller-stats': () => ({ items: [], totals: servedAssistant(seed, resolved, ref).callerStats }),
    searches: () => {
      const window = servedSearches(seed, resolved, ref);
      return { items: window.searches, totals: { totalSearches: window.totalSearches } };
    },
    'assistant-threads': () => ({ items: [...servedAssistant(seed, resolved, ref).threads.values()] }),
  } satisfies { [K in AnalyticsDataset]: () => TruthByDataset[K] };
  return structuredClone(truth[dataset]()) as TruthByDataset[D];
}

/** One thread of a window's assistant data, as the thread endpoint answers it; undefined when the window has no such thread. */
export function analyticsThread(
  options: EmulatorOptions,
  projectId: string,
  dateFrom: string,
  dateTo: string,
  threadId: string,
  revision = 0,
): AssistantThread | undefined {
  const resolved = resolve(options);
  const thread = servedAssistant(resolved.seed, resolved, windowRef(projectId, dateFrom, dateTo, revision)).threads.get(threadId);
  return thread && structuredClone(thread);
}

function traffic(options: ResolvedEmulatorOptions, measure: 'visitors' | 'views', ref: WindowRef, count: number) {
  const compact = computeCompactWindow(options.seed, ref.projectId, ref.fromMs, ref.toMs, count, ref.revision, measure);
  const window = new TrafficWindow(compact, options, knobKey(options.seed, measure, ref.projectId, ref.fromMs, ref.toMs, ref.revision));
  return { items: window.rows(0, window.size), totals: window.totals };
}

/** Resolving is idempotent, so resolved options (an emulator's `options`) are accepted too. */
function resolve(options: EmulatorOptions): ResolvedEmulatorOptions {
  return resolveEmulatorOptions(options);
}

function windowRef(projectId: string, dateFrom: string, dateTo: string, revision: number): WindowRef {
  const fromMs = parseApiDate(dateFrom);
  const toMs = parseApiDate(dateTo);
  if (fromMs === undefined || toMs === undefined || toMs <= fromMs) throw new RangeError(`invalid window ${dateFrom}..${dateTo}`);
  return { projectId, dateFrom, dateTo, fromMs, toMs, revision };
}
