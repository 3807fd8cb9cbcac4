/**
 * Abandoned runs: runs left `running` with no live job (their jobs were lost from Redis, or
 * removed) are marked `abandoned` by src/export/reap-abandoned.ts. Their staged rows stay, so the
 * window can resume from them, until a later run of the window completes or the retention passes
 * (prune.ts). These are the warehouse's questions about them.
 */
import { toDateTime64 } from './datetime.js';
import { EXPORT_RUN_COLUMNS, toExportRun, type ExportRun, type ExportRunRow } from './export-runs.js';
import { selectRows } from './select-rows.js';
import { tableName } from './sql-text.js';
import type { Warehouse } from './warehouse.js';

/** How long an abandoned run's rows are kept for a resume, at most. */
export const ABANDONED_RETENTION_MS = 14 * 86_400_000;

/** A run of a window, as `export_runs` shows it. */
export type RunOfWindow = ExportRun;

/**
 * Runs still `running` whose last event (their start, or an adoption's new `running`) is older than
 * `untouchedSince`: the candidates for `abandoned`.
 */
export async function runningRunsUntouchedSince(wh: Warehouse, untouchedSince: Date): Promise<RunOfWindow[]> {
  const rows = await selectRows<ExportRunRow>(
    wh,
    `SELECT ${EXPORT_RUN_COLUMNS} FROM ${tableName(wh, 'export_runs')}
     WHERE status = 'running' AND run_id IN (
       SELECT run_id FROM ${tableName(wh, 'export_run_events')}
       GROUP BY run_id HAVING max(event_at) < {before:DateTime64(3)}
     )
     ORDER BY started_at`,
    { before: toDateTime64(untouchedSince) },
  );
  return rows.map(toExportRun);
}

/**
 * The run a re-enqueued window should resume instead of starting afresh: its latest `abandoned`
 * run, if no run of the window completed after that one started and its rows are still within
 * the retention (prune.ts deletes them past it, with the same cutoff). Null when there is none.
 *
 * To resume it, an export adopts its run id (rows are read back by run id: `runProgress`) and
 * records a `running` event for it again.
 */
export async function latestResumableRun(
  wh: Warehouse,
  window: { dataset: string; projectId: string; dateFrom: string; dateTo: string },
  options: { retentionMs?: number; now?: Date } = {},
): Promise<RunOfWindow | null> {
  const cutoff = new Date((options.now ?? new Date()).getTime() - (options.retentionMs ?? ABANDONED_RETENTION_MS));
  // Every export asks this before it starts, and the answer is almost always no. The view below
  // folds every run's events before it filters (tens of ms on a warehouse of many runs); an
  // abandoned run of the window has an 'abandoned' event of its own, found by a plain scan.
  const [marked] = await selectRows<{ n: number | string }>(
    wh,
    `SELECT count() AS n FROM ${tableName(wh, 'export_run_events')}
     WHERE dataset = {dataset:String} AND project_id = {projectId:String}
       AND date_from = {dateFrom:Date} AND date_to = {dateTo:Date}
       AND status = 'abandoned' AND event_at >= {cutoff:DateTime64(3)}`,
    { ...window, cutoff: toDateTime64(cutoff) },
  );
  if (Number(marked?.n ?? 0) === 0) return null;
  const runs = tableName(wh, 'export_runs');
  const rows = await selectRows<ExportRunRow>(
    wh,
    `SELECT ${EXPORT_RUN_COLUMNS} FROM ${runs}
     WHERE dataset = {dataset:String} AND project_id = {projectId:String}
       AND date_from = {dateFrom:Date} AND date_to = {dateTo:Date}
       AND status = 'abandoned' AND finished_at >= {cutoff:DateTime64(3)}
       AND started_at > (
         SELECT max(started_at) FROM ${runs}
         WHERE dataset = {dataset:String} AND project_id = {projectId:String}
           AND date_from = {dateFrom:Date} AND date_to = {dateTo:Date} AND status = 'complete'
       )
     ORDER BY started_at DESC, run_id DESC
     LIMIT 1`,
    { ...window, cutoff: toDateTime64(cutoff) },
  );
  return rows[0] ? toExportRun(rows[0]) : null;
}
