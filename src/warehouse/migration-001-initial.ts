/**
 * The first schema: append-only event tables, row tables keyed by run, and the public views.
 * Readers see a window's rows only through `latest_complete_runs`, so the single insert of a run's
 * 'complete' event is the atomic switch from the old export to the new one.
 *
 * Views take the latest state with `argMax(tuple(...), key)` in a subquery: a plain
 * `argMax(nullable_column, key)` skips NULLs (it would resurrect an older pr_link or error), and an
 * alias equal to a column name inside an aggregate is a cyclic alias for the engine.
 */
import type { Migration } from './migration.js';

export const initialSchema: Migration = {
  version: 1,
  name: 'initial schema',
  statements: (db) => [
    `CREATE TABLE IF NOT EXISTS ${db}.export_run_events (
      run_id String,
      project_id String,
      date_from Date,
      date_to Date,
      kind LowCardinality(String),
      status LowCardinality(String),
      pages UInt32,
      rows UInt64,
      requests UInt32,
      error String,
      started_at DateTime64(3, 'UTC'),
      event_at DateTime64(3, 'UTC'),
      seq UInt64
    ) ENGINE = MergeTree
    ORDER BY (project_id, date_from, date_to, run_id, seq)`,

    // Rows of every run, kept until pruned. The deduplication window makes a replayed batch (same
    // token) a no-op on a non-replicated table; tokens carry the run id, so a later re-export of
    // identical rows is never taken for a replay.
    `CREATE TABLE IF NOT EXISTS ${db}.visitor_rows (
      run_id String,
      project_id String,
      date_from Date,
      date_to Date,
      path String,
      human UInt64,
      ai UInt64,
      total UInt64,
      batch_offset UInt32,
      batch_end UInt32
    ) ENGINE = MergeTree
    ORDER BY (project_id, date_from, date_to, run_id, batch_offset, path)
    SETTINGS non_replicated_deduplication_window = 10000`,

    `CREATE TABLE IF NOT EXISTS ${db}.visitor_window_totals (
      run_id String,
      project_id String,
      date_from Date,
      date_to Date,
      human UInt64,
      ai UInt64,
      total UInt64,
      recorded_at DateTime64(3, 'UTC')
    ) ENGINE = MergeTree
    ORDER BY (project_id, date_from, date_to, run_id)
    SETTINGS non_replicated_deduplication_window = 10000`,

    `CREATE TABLE IF NOT EXISTS ${db}.prompt_events (
      batch_id String,
      prompt_id String,
      project_id String,
      job_id String,
      status LowCardinality(String),
      pr_link Nullable(String),
      sent_at Nullable(DateTime64(3, 'UTC')),
      finished_at Nullable(DateTime64(3, 'UTC')),
      polls UInt32,
      error Nullable(String),
      version UInt64,
      recorded_at DateTime64(3, 'UTC')
    ) ENGINE = MergeTree
    ORDER BY (batch_id, prompt_id, version)`,

    `CREATE VIEW IF NOT EXISTS ${db}.export_runs AS
    SELECT
      run_id,
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
        argMax(tuple(project_id, date_from, date_to, kind, status, pages, rows, requests, error), (seq, event_at)) AS latest,
        min(started_at) AS first_started_at,
        argMax(event_at, (seq, event_at)) AS last_event_at
      FROM ${db}.export_run_events
      GROUP BY run_id
    )`,

    // The run each window shows: the complete run that completed last (ties broken by run id).
    `CREATE VIEW IF NOT EXISTS ${db}.latest_complete_runs AS
    SELECT project_id, date_from, date_to, latest_run_id AS run_id, completed_at
    FROM (
      SELECT
        project_id, date_from, date_to,
        argMax(run_id, (event_at, run_id)) AS latest_run_id,
        max(event_at) AS completed_at
      FROM ${db}.export_run_events
      WHERE status = 'complete'
      GROUP BY project_id, date_from, date_to
    )`,

    `CREATE VIEW IF NOT EXISTS ${db}.visitors AS
    SELECT project_id, date_from, date_to, path, human, ai, total
    FROM ${db}.visitor_rows
    WHERE run_id IN (SELECT run_id FROM ${db}.latest_complete_runs)`,

    // LIMIT 1 BY guards the view against a totals row stored twice (a replay outside the
    // deduplication window); a window has one latest run, so this is one row per window.
    `CREATE VIEW IF NOT EXISTS ${db}.visitor_totals AS
    SELECT project_id, date_from, date_to, human, ai, total
    FROM ${db}.visitor_window_totals
    WHERE run_id IN (SELECT run_id FROM ${db}.latest_complete_runs)
    LIMIT 1 BY run_id`,

    `CREATE VIEW IF NOT EXISTS ${db}.prompt_outcomes AS
    SELECT
      batch_id,
      prompt_id,
      tupleElement(latest, 1) AS project_id,
      tupleElement(latest, 2) AS job_id,
      tupleElement(latest, 3) AS status,
      tupleElement(latest, 4) AS pr_link,
      tupleElement(latest, 5) AS sent_at,
      tupleElement(latest, 6) AS finished_at,
      tupleElement(latest, 7) AS polls,
      tupleElement(latest, 8) AS error
    FROM (
      SELECT
        batch_id,
        prompt_id,
        argMax(tuple(project_id, job_id, status, pr_link, sent_at, finished_at, polls, error), (version, recorded_at)) AS latest
      FROM ${db}.prompt_events
      GROUP BY batch_id, prompt_id
    )`,
  ],
};
