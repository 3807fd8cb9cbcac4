/**
 * Export runs in their latest state, from the `export_runs` view, for the dashboard: the same
 * shape as the warehouse's own `latestRuns`, read through a WarehouseReader so it also works
 * through the running installation's gateway.
 */
import { tableName, type ExportRun, type RunKind, type RunStatus } from '../warehouse/index.js';
import type { WarehouseReader } from './warehouse-reader.js';

interface ExportRunRow {
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

/** DateTime64 text (`2024-05-01 12:00:00.000`, UTC) as a Date. */
function utcDate(text: string): Date {
  return new Date(`${text.replace(' ', 'T')}Z`);
}

export interface ExportRunsOptions {
  /** Only this project's runs. @default all projects */
  projectId?: string;
  /** Only this dataset's runs. @default every dataset */
  dataset?: string;
  /** At most this many, newest first. */
  limit: number;
}

/** The newest runs (by start time) in their latest state. */
export async function exportRuns(wh: WarehouseReader, options: ExportRunsOptions): Promise<ExportRun[]> {
  const where = [options.projectId !== undefined ? 'project_id = {projectId:String}' : '', options.dataset !== undefined ? 'dataset = {dataset:String}' : ''].filter(Boolean);
  const rows = await wh.select<ExportRunRow>(
    `SELECT run_id, dataset, project_id, date_from, date_to, kind, status, pages, rows, requests, error, started_at, finished_at, duration_ms
     FROM ${tableName(wh, 'export_runs')} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY started_at DESC, run_id DESC LIMIT {limit:UInt32}`,
    { limit: options.limit, ...(options.projectId !== undefined ? { projectId: options.projectId } : {}), ...(options.dataset !== undefined ? { dataset: options.dataset } : {}) },
  );
  return rows.map((row) => ({
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
    startedAt: utcDate(row.started_at),
    finishedAt: row.finished_at === null ? null : utcDate(row.finished_at),
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
  }));
}
