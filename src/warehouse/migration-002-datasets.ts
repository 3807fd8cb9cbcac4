/**
 * Every analytics dataset. Runs gain a `dataset` (existing runs are `visitors`), so runs, their
 * latest-complete choice, dedup tokens and views are keyed by (dataset, project, window). Each
 * dataset gets a row table (run and batch columns, its own columns, `extra` for fields beyond the
 * schema) and its public view of the latest complete run of each window; window-level totals get
 * a table of their own. Findings go to `data_quality_findings`.
 *
 * Upgrade in place: only ADD COLUMN (with defaults) and new objects; the views of version 1 are
 * replaced by equivalents that return the same rows.
 */
import type { Migration } from './migration.js';

/** Columns every row table starts with: the run, the window, and the batch that loaded the row. */
const RUN_COLUMNS = `run_id String,
      project_id String,
      date_from Date,
      date_to Date,
      batch_offset UInt32,
      batch_end UInt32,
      batch_cursor String`;

function rowTable(db: string, table: string, columns: string, key: string): string {
  return `CREATE TABLE IF NOT EXISTS ${db}.${table} (
      ${RUN_COLUMNS},
      ${columns},
      extra String
    ) ENGINE = MergeTree
    ORDER BY (project_id, date_from, date_to, run_id, batch_offset${key ? `, ${key}` : ''})
    SETTINGS non_replicated_deduplication_window = 10000`;
}

function totalsTable(db: string, table: string, columns: string): string {
  return `CREATE TABLE IF NOT EXISTS ${db}.${table} (
      run_id String,
      project_id String,
      date_from Date,
      date_to Date,
      ${columns},
      recorded_at DateTime64(3, 'UTC')
    ) ENGINE = MergeTree
    ORDER BY (project_id, date_from, date_to, run_id)
    SETTINGS non_replicated_deduplication_window = 10000`;
}

/** The public view of a dataset: its rows of the latest complete run of each window. */
function latestView(db: string, view: string, table: string, dataset: string, columns: string, oneRowPerRun = false): string {
  return `CREATE OR REPLACE VIEW ${db}.${view} AS
    SELECT project_id, date_from, date_to, ${columns}
    FROM ${db}.${table}
    WHERE run_id IN (SELECT run_id FROM ${db}.latest_complete_runs WHERE dataset = '${dataset}')${oneRowPerRun ? '\n    LIMIT 1 BY run_id' : ''}`;
}

export const datasetsSchema: Migration = {
  version: 2,
  name: 'every analytics dataset',
  statements: (db) => [
    `ALTER TABLE ${db}.export_run_events ADD COLUMN IF NOT EXISTS dataset LowCardinality(String) DEFAULT 'visitors' AFTER run_id`,
    `ALTER TABLE ${db}.visitor_rows ADD COLUMN IF NOT EXISTS batch_cursor String DEFAULT '' AFTER batch_end`,
    `ALTER TABLE ${db}.visitor_rows ADD COLUMN IF NOT EXISTS extra String DEFAULT ''`,

    `CREATE OR REPLACE VIEW ${db}.export_runs AS
    SELECT
      run_id,
      dataset,
      tupleElement(latest, 1) AS project_id,
      tupleElement(latest, 2) AS date_from,
      tupleElement(latest, 3) AS date_to,
      tupleElement(latest, 4) AS kind,
      tupleElement(latest, 5) AS status,
      tupleElement(latest, 6) AS pages,
      tupleElement(latest, 7) AS rows,
      tupleElement(latest, 8) AS requests,
      tupleElement(latest, 9) AS error,
      first_started_at AS started_at,
      if(status = 'running', NULL, last_event_at) AS finished_at,
      if(status = 'running', NULL,
         toUnixTimestamp64Milli(last_event_at) - toUnixTimestamp64Milli(first_started_at)) AS duration_ms
    FROM (
      SELECT
        run_id,
        any(dataset) AS dataset,
        argMax(tuple(project_id, date_from, date_to, kind, status, pages, rows, requests, error), (seq, event_at)) AS latest,
        min(started_at) AS first_started_at,
        argMax(event_at, (seq, event_at)) AS last_event_at
      FROM ${db}.export_run_events
      GROUP BY run_id
    )`,

    // The run each (dataset, window) shows: the complete run that completed last (ties by run id).
    `CREATE OR REPLACE VIEW ${db}.latest_complete_runs AS
    SELECT dataset, project_id, date_from, date_to, latest_run_id AS run_id, completed_at
    FROM (
      SELECT
        dataset, project_id, date_from, date_to,
        argMax(run_id, (event_at, run_id)) AS latest_run_id,
        max(event_at) AS completed_at
      FROM ${db}.export_run_events
      WHERE status = 'complete'
      GROUP BY dataset, project_id, date_from, date_to
    )`,

    latestView(db, 'visitors', 'visitor_rows', 'visitors', 'path, human, ai, total'),
    latestView(db, 'visitor_totals', 'visitor_window_totals', 'visitors', 'human, ai, total', true),

    rowTable(db, 'page_view_rows', 'path String, human UInt64, ai UInt64, total UInt64', 'path'),
    totalsTable(db, 'page_view_window_totals', 'human UInt64, ai UInt64, total UInt64'),
    latestView(db, 'page_views', 'page_view_rows', 'views', 'path, human, ai, total'),
    latestView(db, 'page_view_totals', 'page_view_window_totals', 'views', 'human, ai, total', true),

    rowTable(
      db,
      'feedback_rows',
      `id String, path String, source LowCardinality(String), status LowCardinality(String), comment Nullable(String),
      created_at Nullable(DateTime64(3, 'UTC')), helpful Nullable(Bool), contact Nullable(String), code Nullable(String),
      filename Nullable(String), lang Nullable(String)`,
      'id',
    ),
    latestView(db, 'feedback', 'feedback_rows', 'feedback', 'id, path, source, status, comment, created_at, helpful, contact, code, filename, lang'),

    rowTable(db, 'feedback_by_page_rows', 'path String, thumbs_up UInt64, thumbs_down UInt64, code UInt64, total UInt64', 'path'),
    latestView(db, 'feedback_by_page', 'feedback_by_page_rows', 'feedback-by-page', 'path, thumbs_up, thumbs_down, code, total'),

    rowTable(
      db,
      'assistant_conversation_rows',
      `id String, timestamp Nullable(DateTime64(3, 'UTC')), query String, response String,
      response_type LowCardinality(String), resolution_status LowCardinality(String), query_category Nullable(String),
      page_url Nullable(String), sources Array(Tuple(title String, url String))`,
      'id',
    ),
    latestView(
      db,
      'assistant_conversations',
      'assistant_conversation_rows',
      'assistant',
      'id, timestamp, query, response, response_type, resolution_status, query_category, page_url, sources',
    ),

    rowTable(db, 'assistant_caller_stats_rows', 'web UInt64, api UInt64, other UInt64, total UInt64', ''),
    latestView(db, 'assistant_caller_stats', 'assistant_caller_stats_rows', 'assistant-caller-stats', 'web, api, other, total', true),

    rowTable(
      db,
      'search_rows',
      `search_query String, hits UInt64, ctr Float64, top_clicked_page Nullable(String),
      last_searched_at Nullable(DateTime64(3, 'UTC'))`,
      'search_query',
    ),
    totalsTable(db, 'search_window_totals', 'total_searches UInt64'),
    latestView(db, 'searches', 'search_rows', 'searches', 'search_query, hits, ctr, top_clicked_page, last_searched_at'),
    latestView(db, 'search_totals', 'search_window_totals', 'searches', 'total_searches', true),

    rowTable(
      db,
      'assistant_message_rows',
      `thread_id String, message_id String, role LowCardinality(String), content String, created_at Nullable(DateTime64(3, 'UTC'))`,
      'thread_id, message_id',
    ),
    latestView(db, 'assistant_messages', 'assistant_message_rows', 'assistant-threads', 'thread_id, message_id, role, content, created_at'),

    `CREATE TABLE IF NOT EXISTS ${db}.data_quality_findings (
      dataset LowCardinality(String),
      run_id String,
      project_id String,
      date_from Date,
      date_to Date,
      batch_offset UInt32,
      kind LowCardinality(String),
      detail String,
      observed_at DateTime64(3, 'UTC')
    ) ENGINE = MergeTree
    ORDER BY (dataset, project_id, date_from, date_to, run_id, batch_offset)
    SETTINGS non_replicated_deduplication_window = 10000`,

    // Findings of the runs readers see (the latest complete run of each window).
    `CREATE OR REPLACE VIEW ${db}.data_quality AS
    SELECT dataset, run_id, kind, detail, observed_at, project_id, date_from, date_to
    FROM ${db}.data_quality_findings
    WHERE run_id IN (SELECT run_id FROM ${db}.latest_complete_runs)`,
  ],
};
