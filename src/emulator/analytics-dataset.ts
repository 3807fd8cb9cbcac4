/**
 * What the emulator knows of one analytics dataset (its fixture, one file per dataset under
 * datasets/): where it answers, which parameters it takes, the answer it serves and the ground
 * truth tests compare an export against. The route table, paging, faults and query parsing are
 * shared; a fixture holds only what is particular to its dataset.
 */
import type { DatasetName } from '../datasets/index.js';
import type { AnalyticsQuery, FeedbackFilters, QuerySpec } from './analytics-query.js';
import type { Answer, EmulatorContext } from './emulator-context.js';
import type { ResolvedEmulatorOptions } from './emulator-options.js';
import type { WindowRef } from './window-ref.js';

/** The emulator's datasets are the pipeline's: the same names. */
export type AnalyticsDataset = DatasetName;

/** Every item of a window as served (all pages), and the window-level figures every page repeats. */
export interface Truth<Item = unknown, Totals = unknown> {
  items: Item[];
  totals?: Totals;
}

interface FixtureBase<T extends Truth> {
  /** Path under `/v1/analytics/:projectId/`, in fastify's syntax. */
  path: string;
  /** Ground truth of a window, as served with these options (pure). */
  truth(options: ResolvedEmulatorOptions, ref: WindowRef, filters: FeedbackFilters): T;
}

/** A dataset asked for by window: the route parses `query` and names the window. */
export interface WindowFixture<T extends Truth = Truth> extends FixtureBase<T> {
  kind: 'window';
  query: QuerySpec;
  answer(ctx: EmulatorContext, query: AnalyticsQuery, ref: WindowRef): Answer;
}

/** A dataset asked for by an id in the path (no window). */
export interface LookupFixture<T extends Truth = Truth> extends FixtureBase<T> {
  kind: 'lookup';
  answer(ctx: EmulatorContext, projectId: string, params: Record<string, string>): Answer;
}

export type EmulatorDataset<T extends Truth = Truth> = WindowFixture<T> | LookupFixture<T>;
