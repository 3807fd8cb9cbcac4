/**
 * A dataset is a declaration (like dlt's resources or Airbyte's declarative streams): where to ask,
 * how to page, what a page looks like, how an item becomes a row and where rows go. The engine in
 * src/export/ that pages, checkpoints, budgets and loads is written once for all of them.
 */
import type { z } from 'zod';
import type { RowContext } from './row-context.js';

/**
 * How the endpoint pages:
 * - `offset`: `offset` = rows received so far, while `hasMore` (pages may be fetched ahead);
 * - `cursor`: `cursor` = the previous `nextCursor`, while `hasMore` (`until: 'hasMore'`) or while
 *   `nextCursor` is not null (`until: 'nullCursor'`);
 * - `single`: one call per window (`hasMore: true` means the answer was cut: a `truncated` finding);
 * - `fanout`: one call per id listed by another dataset's complete rows of the same window.
 */
export type Pagination =
  | { kind: 'offset'; limit: number }
  | { kind: 'cursor'; limit: number; until: 'hasMore' | 'nullCursor' }
  | { kind: 'single'; limit?: number }
  | {
      kind: 'fanout';
      /** The dataset whose complete run of the same window lists the ids (a registered name: src/datasets/index.ts checks). */
      source: string;
      /** SELECT returning one column `id` (distinct, ordered) for a window, given the qualified source view. */
      idsSql: (sourceView: string) => string;
      /** Endpoint of one id, under `/v1/analytics/{projectId}/`. */
      endpointFor: (id: string) => string;
    };

/** What the engine reads off a validated page. */
export interface PageView<Item> {
  items: readonly Item[];
  /** More pages follow (offset and `hasMore` cursors); for `single`, the answer was cut. */
  hasMore: boolean;
  /** The next page's cursor (cursor pagination). */
  nextCursor?: string | null;
  /**
   * Window-level figures every page repeats (e.g. visitors `totals`): compared across pages (a
   * change means the data moved mid-run) and stored once, as columns of `totalsTable`.
   */
  totals?: Record<string, unknown>;
}

/**
 * The schema change that creates a dataset's own tables and view: the shape of the warehouse's
 * `Migration` (src/warehouse/migration.ts), declared here so datasets/ does not import the
 * warehouse. Its version is the next free one; the warehouse applies it in order with the rest.
 */
/**
 * zod, handed to a declaration's `schema` on first use (src/datasets/dataset-schema.ts): the
 * declarations load without zod, so whatever needs only their names or tables (config, the
 * warehouse's migrations, `--help`) does not pay for loading it and building every schema.
 */
export type Zod = typeof z;

export interface DatasetMigration {
  readonly version: number;
  readonly name: string;
  /** Each statement safe to run again (`IF NOT EXISTS`, `CREATE OR REPLACE VIEW`). */
  readonly statements: (database: string) => readonly string[];
}

export interface Dataset<Body = unknown, Item = unknown> {
  /** Its key in the registry (src/datasets/index.ts), which checks that the two agree. */
  name: string;
  /** Path under `/v1/analytics/{projectId}/` (fanout datasets use `pagination.endpointFor`). */
  endpoint: string;
  pagination: Pagination;
  /** The 200 body, as the published spec describes it; objects keep fields beyond the schema. Built once, by `schemaOf`. */
  schema: (zod: Zod) => z.ZodType<Body>;
  /** Reads items, `hasMore`, cursor and totals off a body; totals' counts go through `ctx`. */
  page(body: Body, ctx: RowContext): PageView<Item>;
  /** Row table (one row per item); columns of `row()` plus the engine's run and batch columns. */
  table: string;
  /** The public view of the rows (see docs/design.md). */
  view: string;
  /**
   * Column that identifies an item within one window: seen twice in one run, the data moved.
   * Absent for datasets of one row per window.
   */
  keyColumn?: string;
  /**
   * Columns that, with `keyColumn`, identify an item where the spec lets `keyColumn` repeat (the
   * turns of one assistant conversation). @default none
   */
  keyWith?: readonly string[];
  /** Column values of one item. */
  row(item: Item, ctx: RowContext): Record<string, unknown>;
  /** Table of the window-level `totals`, one row per complete run. */
  totalsTable?: string;
  /** Requests a one-day window costs when no run of it is known yet (for `plan`). @default 1 */
  requestsPerDayGuess?: number;
  /**
   * Creates `table`, `totalsTable` and `view`. Absent for the datasets whose tables shipped in the
   * warehouse's own migrations (002, 004).
   */
  migration?: DatasetMigration;
}

/** Types a dataset module against its own body and item types. */
export function defineDataset<Body, Item>(dataset: Dataset<Body, Item>): Dataset {
  return dataset as unknown as Dataset;
}
