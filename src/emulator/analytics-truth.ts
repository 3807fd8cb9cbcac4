/**
 * Ground truth of the analytics endpoints for tests: exactly what the emulator with these options
 * serves for a window, computed without a server. Pure: the same arguments give the same answer.
 *
 * `analyticsTruth(options, dataset, projectId, dateFrom, dateTo, { revision?, filters? })` returns
 * `{ items, totals? }`, spec-shaped as served (knobs applied: approximate counts, extra fields,
 * lone surrogates), `items` in serving order: every item across all pages (offset pages at any
 * limit and under `maxPageRows`, cursor pages after the feedback filters, if given), `totals` the
 * window-level figures every page repeats (for a one-call dataset like caller stats, the answer).
 * Each dataset's fixture (datasets/<name>.ts) computes its own. `analyticsThread` gives one thread by id.
 *
 * `revision` is the project's data revision (`control.mutate` bumps it; `control.truth` passes
 * the current one). @default 0
 */
import type { AnalyticsDataset } from './analytics-dataset.js';
import type { FeedbackFilters } from './analytics-query.js';
import { parseApiDate } from './api-date.js';
import { servedAssistant } from './datasets/assistant.js';
import { windowThreads, type AssistantThread } from './datasets/assistant-threads.js';
import { EMULATOR_DATASETS, type EmulatorDatasets } from './datasets/index.js';
import { resolveEmulatorOptions, type EmulatorOptions, type ResolvedEmulatorOptions } from './emulator-options.js';
import { makeWindowRef, type WindowRef } from './window-ref.js';

/** Each dataset's truth, as its fixture computes it. */
export type TruthByDataset = { [D in AnalyticsDataset]: ReturnType<EmulatorDatasets[D]['truth']> };

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
  const ref = windowRef(projectId, dateFrom, dateTo, truthOptions.revision ?? 0, resolved.now());
  const fixture = EMULATOR_DATASETS[dataset] as EmulatorDatasets[AnalyticsDataset];
  return structuredClone(fixture.truth(resolved, ref, truthOptions.filters ?? {})) as TruthByDataset[D];
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
  const window = servedAssistant(resolved.seed, resolved, windowRef(projectId, dateFrom, dateTo, revision, resolved.now()));
  const thread = windowThreads(resolved, window).get(threadId);
  return thread && structuredClone(thread);
}

/** Resolving is idempotent, so resolved options (an emulator's `options`) are accepted too. */
function resolve(options: EmulatorOptions): ResolvedEmulatorOptions {
  return resolveEmulatorOptions(options);
}

function windowRef(projectId: string, dateFrom: string, dateTo: string, revision: number, nowMs: number): WindowRef {
  const fromMs = parseApiDate(dateFrom);
  const toMs = parseApiDate(dateTo);
  if (fromMs === undefined || toMs === undefined || toMs <= fromMs) throw new RangeError(`invalid window ${dateFrom}..${dateTo}`);
  return makeWindowRef({ projectId, dateFrom, dateTo, fromMs, toMs }, revision, nowMs);
}
