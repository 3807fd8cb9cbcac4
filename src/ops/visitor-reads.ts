/**
 * Read-only queries on the public visitor views for the dashboard and metrics. Uniques are not
 * additive, so nothing here sums windows: a day's numbers come from that day's own 1-day window,
 * and top pages come from one exported window exactly as it was exported.
 */
import { addDays, dayToMs } from '../export/dates.js';
import { tableName } from '../warehouse/index.js';
import type { WarehouseReader } from './warehouse-reader.js';

/** A site-wide count of unique visitors; `total` is deduplicated across human and AI. */
export interface VisitorCounts {
  human: number;
  ai: number;
  total: number;
}

/** One day of the daily series; `counts` is null when that day has no complete export. */
export interface DailyPoint {
  /** `YYYY-MM-DD` */
  date: string;
  counts: VisitorCounts | null;
}

export interface ExportedWindow extends VisitorCounts {
  dateFrom: string;
  /** Exclusive. */
  dateTo: string;
  days: number;
}

export interface PageRow extends VisitorCounts {
  path: string;
}

interface CountsRow {
  human: number | string;
  ai: number | string;
  total: number | string;
}

function counts(row: CountsRow): VisitorCounts {
  return { human: Number(row.human), ai: Number(row.ai), total: Number(row.total) };
}

/** Projects with at least one export run, alphabetically. */
export async function listProjects(wh: WarehouseReader): Promise<string[]> {
  const rows = await wh.select<{ project_id: string }>(
    `SELECT DISTINCT project_id FROM ${tableName(wh, 'export_runs')} ORDER BY project_id`,
  );
  return rows.map((r) => r.project_id);
}

/**
 * Unique visitors of each day in [from, to) from the 1-day windows of `visitor_totals`; days
 * without a complete 1-day export are present with `counts: null` so a chart shows the gap.
 */
export async function dailyVisitors(wh: WarehouseReader, projectId: string, from: string, to: string): Promise<DailyPoint[]> {
  const rows = await wh.select<CountsRow & { date_from: string }>(
    `SELECT date_from, human, ai, total FROM ${tableName(wh, 'visitor_totals')}
     WHERE project_id = {projectId:String} AND date_to = date_from + 1
       AND date_from >= {from:Date} AND date_from < {to:Date}`,
    { projectId, from, to },
  );
  const byDay = new Map(rows.map((r) => [r.date_from, counts(r)]));
  const points: DailyPoint[] = [];
  for (let day = from; day < to; day = addDays(day, 1)) points.push({ date: day, counts: byDay.get(day) ?? null });
  return points;
}

/** The exported windows of a project (any length), newest first. */
export async function exportedWindows(wh: WarehouseReader, projectId: string, limit: number): Promise<ExportedWindow[]> {
  const rows = await wh.select<CountsRow & { date_from: string; date_to: string }>(
    `SELECT date_from, date_to, human, ai, total FROM ${tableName(wh, 'visitor_totals')}
     WHERE project_id = {projectId:String}
     ORDER BY date_to DESC, date_from ASC LIMIT {limit:UInt32}`,
    { projectId, limit },
  );
  return rows.map((r) => ({
    dateFrom: r.date_from,
    dateTo: r.date_to,
    days: Math.round((dayToMs(r.date_to) - dayToMs(r.date_from)) / 86_400_000),
    ...counts(r),
  }));
}

/** The site-wide totals of one exported window, or null when it was never exported completely. */
export async function windowTotals(wh: WarehouseReader, projectId: string, from: string, to: string): Promise<VisitorCounts | null> {
  const [row] = await wh.select<CountsRow>(
    `SELECT human, ai, total FROM ${tableName(wh, 'visitor_totals')}
     WHERE project_id = {projectId:String} AND date_from = {from:Date} AND date_to = {to:Date} LIMIT 1`,
    { projectId, from, to },
  );
  return row ? counts(row) : null;
}

/** The most visited pages of one exported window, by total uniques. */
export async function topPages(wh: WarehouseReader, projectId: string, from: string, to: string, limit: number): Promise<PageRow[]> {
  const rows = await wh.select<CountsRow & { path: string }>(
    `SELECT path, human, ai, total FROM ${tableName(wh, 'visitors')}
     WHERE project_id = {projectId:String} AND date_from = {from:Date} AND date_to = {to:Date}
     ORDER BY total DESC, path ASC LIMIT {limit:UInt32}`,
    { projectId, from, to, limit },
  );
  return rows.map((r) => ({ path: r.path, ...counts(r) }));
}

/** Per project, the end (exclusive `date_to`) of its newest complete 1-day window. */
export async function newestCompleteDays(wh: WarehouseReader): Promise<Map<string, string>> {
  const rows = await wh.select<{ project_id: string; newest_end: string }>(
    `SELECT project_id, max(date_to) AS newest_end FROM ${tableName(wh, 'visitor_totals')}
     WHERE date_to = date_from + 1 GROUP BY project_id`,
  );
  return new Map(rows.map((r) => [r.project_id, r.newest_end]));
}

/**
 * Export lag in seconds: how long ago the newest complete day ended. A nightly run that finished
 * yesterday's window at 02:00 shows a lag of two hours; a stuck pipeline shows it growing.
 */
export function exportLagSeconds(newestEnd: string, now: Date = new Date()): number {
  return Math.max(0, (now.getTime() - dayToMs(newestEnd)) / 1000);
}
