/**
 * Export runs as append-only events. A run's state is its latest event (highest `seq`); readers see
 * its rows only after its 'complete' event, which `completeRun` inserts last.
 */
import { fromDateTime64, fromNullableDateTime64, toDateTime64 } from './datetime.js';
import { storedRows } from './dataset-rows.js';
import { RunRowsMismatchError } from './errors.js';
import { insertRows } from './insert-rows.js';
import { selectRows } from './select-rows.js';
import { tableName } from './sql-text.js';
import type { Warehouse } from './warehouse.js';

export type RunKind = 'nightly' | 'backfill' | 'reexport' | 'manual';
/**
 * `abandoned`: left running with no live job (see resumable-runs.ts); its rows stay for a resume.
 * `cancelled`: called off by `export cancel` before its run fetched a page; nothing to keep.
 */
export type RunStatus = 'running' | 'complete' | 'failed' | 'unstable' | 'abandoned' | 'cancelled';

export interface RunEvent {
  runId: string;
  /** The dataset exported (`visitors`, `feedback`, …). */
  dataset: string;
  projectId: string;
  /** `YYYY-MM-DD`. */
  dateFrom: string;
  /** `YYYY-MM-DD`, exclusive. */
  dateTo: string;
  kind: RunKind;
  status: RunStatus;
  /** @default 0 */
  pages?: number;
  /** @default 0 */
  rows?: number;
  /** @default 0 */
  requests?: number;
  /** @default '' */
  error?: string;
  /** When the run started: a Date or an ISO 8601 string. */
  startedAt: Date | string;
  /** @default now */
  eventAt?: Date;
  /** Order of this event within the run; latest wins. @default one more than the run's highest stored seq */
  seq?: number;
}

export interface CompletedRun extends Omit<RunEvent, 'status' | 'error'> {
  /** The dataset's row table, whose rows of the run are counted before completing. */
  table: string;
  /** Window-level figures and their table (e.g. visitors totals), stored with the completion. */
  totals?: { table: string; columns: Record<string, unknown> };
  pages: number;
  /** Rows loaded by the run; must equal the rows stored for it. */
  rows: number;
  requests: number;
}

/** A run's latest state, as the `export_runs` view shows it. */
export interface ExportRun {
  runId: string;
  dataset: string;
  projectId: string;
  dateFrom: string;
  dateTo: string;
  kind: RunKind;
  status: RunStatus;
  pages: number;
  rows: number;
  requests: number;
  error: string;
  startedAt: Date;
  /** Time of the terminal event; null while running. */
  finishedAt: Date | null;
  durationMs: number | null;
}

/** A row of the `export_runs` view as the engines return it (64-bit counts as numbers or strings). */
export interface ExportRunRow {
  run_id: string;
  dataset: string;
  project_id: string;
  date_from: string;
  date_to: string;
  kind: RunKind;
  status: RunStatus;
  pages: number | string;
  rows: number | string;
  requests: number | string;
  error: string;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | string | null;
}

/** The `export_runs` columns an {@link ExportRunRow} holds, for a SELECT. */
export const EXPORT_RUN_COLUMNS = 'run_id, dataset, project_id, date_from, date_to, kind, status, pages, rows, requests, error, started_at, finished_at, duration_ms';

export function toExportRun(row: ExportRunRow): ExportRun {
  return {
    runId: row.run_id,
    dataset: row.dataset,
    projectId: row.project_id,
    dateFrom: row.date_from,
    dateTo: row.date_to,
    kind: row.kind,
    status: row.status,
    pages: Number(row.pages),
    rows: Number(row.rows),
    requests: Number(row.requests),
    error: row.error,
    startedAt: fromDateTime64(row.started_at),
    finishedAt: fromNullableDateTime64(row.finished_at),
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
  };
}

async function nextSeq(wh: Warehouse, runId: string): Promise<number> {
  const [row] = await selectRows<{ seq: number | string; events: number | string }>(
    wh,
    `SELECT max(seq) AS seq, count() AS events FROM ${tableName(wh, 'export_run_events')} WHERE run_id = {runId:String}`,
    { runId },
  );
  return row && Number(row.events) > 0 ? Number(row.seq) + 1 : 1;
}

/** Appends one event of a run. */
export async function recordRunEvent(wh: Warehouse, event: RunEvent): Promise<void> {
  const seq = event.seq ?? (await nextSeq(wh, event.runId));
  const startedAt = event.startedAt instanceof Date ? event.startedAt : new Date(event.startedAt);
  if (Number.isNaN(startedAt.getTime())) throw new TypeError(`run ${event.runId}: startedAt is not a date: ${String(event.startedAt)}`);
  await insertRows(wh, 'export_run_events', [
    {
      run_id: event.runId,
      dataset: event.dataset,
      project_id: event.projectId,
      date_from: event.dateFrom,
      date_to: event.dateTo,
      kind: event.kind,
      status: event.status,
      pages: event.pages ?? 0,
      rows: event.rows ?? 0,
      requests: event.requests ?? 0,
      error: event.error ?? '',
      started_at: toDateTime64(startedAt),
      event_at: toDateTime64(event.eventAt ?? new Date()),
      seq,
    },
  ]);
}

/**
 * Marks a run complete: checks that its stored rows are all there, stores its window totals, then
 * inserts the 'complete' event — last, because that one insert switches readers to this run.
 */
export async function completeRun(wh: Warehouse, run: CompletedRun): Promise<void> {
  const stored = await storedRows(wh, run.table, run.runId);
  if (stored !== run.rows) throw new RunRowsMismatchError(run.runId, run.rows, stored);
  if (run.totals) {
    await insertRows(
      wh,
      run.totals.table,
      [
        {
          run_id: run.runId,
          project_id: run.projectId,
          date_from: run.dateFrom,
          date_to: run.dateTo,
          ...run.totals.columns,
          recorded_at: toDateTime64(new Date()),
        },
      ],
      { dedupToken: `${run.runId}:totals` },
    );
  }
  const { table: _table, totals: _totals, ...event } = run;
  await recordRunEvent(wh, { ...event, status: 'complete', error: '' });
}

export interface LatestRunsOptions {
  /** Only this project's runs. @default all projects */
  projectId?: string;
  /** At most this many, newest first. */
  limit: number;
}

/** The newest runs (by start time) in their latest state. */
export async function latestRuns(wh: Warehouse, options: LatestRunsOptions): Promise<ExportRun[]> {
  const byProject = options.projectId !== undefined;
  const rows = await selectRows<ExportRunRow>(
    wh,
    `SELECT * FROM ${tableName(wh, 'export_runs')} ${byProject ? 'WHERE project_id = {projectId:String}' : ''}
     ORDER BY started_at DESC, run_id DESC LIMIT {limit:UInt32}`,
    byProject ? { projectId: options.projectId, limit: options.limit } : { limit: options.limit },
  );
  return rows.map(toExportRun);
}

/** The run readers see for a window, or null when no run of it completed. */
export async function latestCompleteRun(
  wh: Warehouse,
  dataset: string,
  projectId: string,
  dateFrom: string,
  dateTo: string,
): Promise<ExportRun | null> {
  const rows = await selectRows<ExportRunRow>(
    wh,
    `SELECT * FROM ${tableName(wh, 'export_runs')}
     WHERE run_id IN (
       SELECT run_id FROM ${tableName(wh, 'latest_complete_runs')}
       WHERE dataset = {dataset:String} AND project_id = {projectId:String} AND date_from = {dateFrom:Date} AND date_to = {dateTo:Date}
     )`,
    { dataset, projectId, dateFrom, dateTo },
  );
  return rows[0] ? toExportRun(rows[0]) : null;
}

/**
 * How many runs of the window other than `runId` ever started: none means a run that just
 * completed superseded nothing (its window is new), so there is nothing of that window to prune.
 */
export async function otherRunsOfWindow(
  wh: Warehouse,
  window: { dataset: string; projectId: string; dateFrom: string; dateTo: string },
  runId: string,
): Promise<number> {
  const rows = await selectRows<{ runs: number | string }>(
    wh,
    `SELECT uniqExact(run_id) AS runs FROM ${tableName(wh, 'export_run_events')}
     WHERE dataset = {dataset:String} AND project_id = {projectId:String} AND date_from = {dateFrom:Date} AND date_to = {dateTo:Date}
       AND run_id != {runId:String}`,
    { ...window, runId },
  );
  return Number(rows[0]?.runs ?? 0);
}
