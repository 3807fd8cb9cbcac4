/**
 * Parts that merges replaced are deleted three seconds after a table starts, not 30–40.
 *
 * A merge leaves the parts it replaced behind as "outdated" until the table's cleanup removes them
 * from disk, and the engine starts that cleanup `cleanup_delay_period` (30 s, plus up to 10 s) after
 * a table starts. One-shot commands (a nightly `mintpipe export` from cron) end before that, so
 * each one left the parts its merges replaced, and every later start loaded them all again: after
 * ~100 one-shot exports, 615 outdated parts made opening the warehouse 100–250 ms slower, growing
 * without end. Due three seconds after a table starts, the cleanup runs in any command that runs
 * that long and removes what the ones before it left (a copy of that warehouse: 615 → 39 outdated
 * parts 3.2 s after it opened, 18 by 6.7 s).
 *
 * Three, not one: at one second the cleanup ran during the export benchmark's two seconds of
 * inserts and made it 10–25% slower (2.03–2.41 s against 1.87–2.08 s); at three it is back
 * (1.91–1.98 s).
 *
 * Every MergeTree table of the warehouse carries these settings (a table added later must too:
 * the schema test checks every one).
 */
import type { Migration } from './migration.js';

export const PARTS_CLEANUP_SETTINGS = 'cleanup_delay_period = 3, cleanup_delay_period_random_add = 0';

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
