/**
 * How fresh each dataset is, per project: its last complete window (the one ending last), the lag
 * from that window's end to today, the rows that window loaded, the windows whose latest run
 * failed, and the data-quality findings of the runs readers see, by kind. For `status` and the
 * dashboard's freshness table; generic over datasets (names come from the warehouse).
 */
import { dayToMs } from '../export/dates.js';
import { tableName } from '../warehouse/index.js';
import type { WarehouseReader } from './warehouse-reader.js';

export interface DatasetFreshness {
  dataset: string;
  projectId: string;
  /** The complete window that ends last; null when no window of it completed yet. */
  lastWindow: { dateFrom: string; dateTo: string; runId: string; rows: number } | null;
  /** Whole days from the last window's end (`date_to`, exclusive) to today: yesterday's window has lag 0. */
  lagDays: number | null;
  /**
   * Windows whose latest run failed, found the data moving (`unstable`) or was left without a job
   * (`abandoned`: it waits for a re-export, which resumes it). Every one is a window not exported.
   */
  failedWindows: number;
  /** Findings of the runs readers see, by kind (`total_out_of_bounds`, `truncated`, …). */
  findings: Record<string, number>;
}

export interface FreshnessOptions {
  /** Only this project. @default every project */
  projectId?: string;
  /** `YYYY-MM-DD` the lag is counted to. @default today (UTC) */
  today?: string;
}

interface LastWindowRow {
  dataset: string;
  project_id: string;
  date_from: string;
  date_to: string;
  run_id: string;
  rows: number | string | null;
}

/** Days from `dateTo` to `today` (both `YYYY-MM-DD`), never negative. */
export function lagDays(dateTo: string, today: string): number {
  return Math.max(0, Math.round((dayToMs(today) - dayToMs(dateTo)) / 86_400_000));
}

export async function datasetFreshness(wh: WarehouseReader, options: FreshnessOptions = {}): Promise<DatasetFreshness[]> {
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  const params = options.projectId === undefined ? {} : { projectId: options.projectId };
  const where = options.projectId === undefined ? '' : 'WHERE project_id = {projectId:String}';
  const [lastWindows, failures, findings] = await Promise.all([
    wh.select<LastWindowRow>(
      `SELECT w.dataset AS dataset, w.project_id AS project_id, w.date_from AS date_from, w.date_to AS date_to, w.run_id AS run_id, r.rows AS rows
       FROM (
         SELECT dataset, project_id,
           tupleElement(last, 1) AS date_from, tupleElement(last, 2) AS date_to, tupleElement(last, 3) AS run_id
         FROM (
           SELECT dataset, project_id, argMax(tuple(date_from, date_to, run_id), (date_to, date_from, completed_at)) AS last
           FROM ${tableName(wh, 'latest_complete_runs')} ${where}
           GROUP BY dataset, project_id
         )
       ) AS w
       LEFT JOIN (SELECT run_id, rows FROM ${tableName(wh, 'export_runs')} ${where}) AS r ON r.run_id = w.run_id
       ORDER BY dataset, project_id`,
      params,
    ),
    wh.select<{ dataset: string; project_id: string; failed: number | string }>(
      `SELECT dataset, project_id, countIf(last_status IN ('failed', 'unstable', 'abandoned')) AS failed
       FROM (
         SELECT dataset, project_id, date_from, date_to, argMax(status, (started_at, run_id)) AS last_status
         FROM ${tableName(wh, 'export_runs')} ${where}
         GROUP BY dataset, project_id, date_from, date_to
       )
       GROUP BY dataset, project_id`,
      params,
    ),
    wh.select<{ dataset: string; project_id: string; kind: string; n: number | string }>(
      `SELECT dataset, project_id, kind, count() AS n FROM ${tableName(wh, 'data_quality')} ${where}
       GROUP BY dataset, project_id, kind ORDER BY dataset, project_id, kind`,
      params,
    ),
  ]);

  const byKey = new Map<string, DatasetFreshness>();
  const entry = (dataset: string, projectId: string): DatasetFreshness => {
    const key = `${dataset}\u0000${projectId}`;
    let found = byKey.get(key);
    if (!found) {
      found = { dataset, projectId, lastWindow: null, lagDays: null, failedWindows: 0, findings: {} };
      byKey.set(key, found);
    }
    return found;
  };
  for (const row of lastWindows) {
    const e = entry(row.dataset, row.project_id);
    e.lastWindow = { dateFrom: row.date_from, dateTo: row.date_to, runId: row.run_id, rows: Number(row.rows ?? 0) };
    e.lagDays = lagDays(row.date_to, today);
  }
  // Every (dataset, project) with a run is here, also one whose runs never completed.
  for (const row of failures) entry(row.dataset, row.project_id).failedWindows = Number(row.failed);
  for (const row of findings) entry(row.dataset, row.project_id).findings[row.kind] = Number(row.n);
  return [...byKey.values()].sort((a, b) => a.dataset.localeCompare(b.dataset) || a.projectId.localeCompare(b.projectId));
}
