/**
 * Parts that merges replaced are deleted within about a second instead of half a minute.
 *
 * A merge leaves the parts it replaced behind as "outdated" until the table's cleanup removes them
 * from disk, and the engine starts that cleanup `cleanup_delay_period` (30 s, plus up to 10 s) after
 * a table starts. A one-shot command (a nightly `mintpipe export` from cron, a `query`) ends long
 * before that, so each one left the parts its merges replaced, and every later start loaded them
 * all again: after ~100 one-shot exports of one page, 615 outdated parts made opening the
 * warehouse 100–250 ms slower, and it grows without end. With the cleanup due one second after a
 * table starts, a command that runs a second removes what the ones before it left (a copy of that
 * warehouse went from 615 to 39 outdated parts 1.3 s after it opened, to 0 after 4 s).
 *
 * Every MergeTree table of the warehouse carries these settings (a table added later must too:
 * the schema test checks every one).
 */
import type { Migration } from './migration.js';

export const PARTS_CLEANUP_SETTINGS = 'cleanup_delay_period = 1, cleanup_delay_period_random_add = 0';

const MERGE_TREE_TABLES = [
  'schema_migrations',
  'export_run_events',
  'data_quality_findings',
  'prompt_events',
  'visitor_rows',
  'visitor_window_totals',
  'page_view_rows',
  'page_view_window_totals',
  'feedback_rows',
  'feedback_by_page_rows',
  'assistant_conversation_rows',
  'assistant_message_rows',
  'assistant_caller_stats_rows',
  'search_rows',
  'search_window_totals',
];

export const partsCleanup: Migration = {
  version: 4,
  name: 'parts-cleanup',
  statements: (db) => MERGE_TREE_TABLES.map((table) => `ALTER TABLE ${db}.${table} MODIFY SETTING ${PARTS_CLEANUP_SETTINGS}`),
};
