/**
 * Export runs in their latest state, from the `export_runs` view, for the dashboard: the same
 * shape as the warehouse's own `latestRuns`, read through a WarehouseReader so it also works
 * through the running installation's gateway.
 */
import { EXPORT_RUN_COLUMNS, tableName, toExportRun, type ExportRun, type ExportRunRow } from '../warehouse/index.js';
import type { WarehouseReader } from './warehouse-reader.js';

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
    `SELECT ${EXPORT_RUN_COLUMNS}
     FROM ${tableName(wh, 'export_runs')} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY started_at DESC, run_id DESC LIMIT {limit:UInt32}`,
    { limit: options.limit, ...(options.projectId !== undefined ? { projectId: options.projectId } : {}), ...(options.dataset !== undefined ? { dataset: options.dataset } : {}) },
  );
  return rows.map(toExportRun);
}
