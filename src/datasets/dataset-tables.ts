/**
 * The tables a dataset's own migration creates, as SQL text: the row table (the engine's run and
 * batch columns, the dataset's columns, `extra`), a totals table for window-level figures, and the
 * public view of the latest complete run of each window. The same shapes as the shipped datasets'
 * (src/warehouse/migration-002-datasets.ts), kept here because datasets/ does not import the
 * warehouse; test/warehouse/warehouse-schema.test.ts checks every table's settings.
 */

/** Dedup of retried inserts, and merged-away parts deleted 3 s after a table starts (migration 004). */
const SETTINGS = 'non_replicated_deduplication_window = 10000, cleanup_delay_period = 3, cleanup_delay_period_random_add = 0';

const RUN_COLUMNS = 'run_id String, project_id String, date_from Date, date_to Date, batch_offset UInt32, batch_end UInt32, batch_cursor String';

/** One row per item; `key` (the dataset's keyColumn) ends the sort key. */
export function rowTableSql(db: string, table: string, columns: string, key?: string): string {
  return `CREATE TABLE IF NOT EXISTS ${db}.${table} (${RUN_COLUMNS}, ${columns}, extra String) ENGINE = MergeTree
    ORDER BY (project_id, date_from, date_to, run_id, batch_offset${key ? `, ${key}` : ''}) SETTINGS ${SETTINGS}`;
}

/** One row of window-level totals per complete run. */
export function totalsTableSql(db: string, table: string, columns: string): string {
  return `CREATE TABLE IF NOT EXISTS ${db}.${table} (run_id String, project_id String, date_from Date, date_to Date, ${columns},
    recorded_at DateTime64(3, 'UTC')) ENGINE = MergeTree ORDER BY (project_id, date_from, date_to, run_id) SETTINGS ${SETTINGS}`;
}

/** The rows of the latest complete run of each window; `oneRowPerRun` for a totals table. */
export function latestViewSql(db: string, view: string, table: string, dataset: string, columns: string, oneRowPerRun = false): string {
  return `CREATE OR REPLACE VIEW ${db}.${view} AS SELECT project_id, date_from, date_to, ${columns} FROM ${db}.${table}
    WHERE run_id IN (SELECT run_id FROM ${db}.latest_complete_runs WHERE dataset = '${dataset}')${oneRowPerRun ? ' LIMIT 1 BY run_id' : ''}`;
}
