/**
 * Export windows: one (dataset, project, dateFrom, dateTo) each, `dateTo` exclusive as the API's.
 * Unique counts are not additive, so a week or a month is its own window, never a sum of days.
 */
import { projectIdProblem } from '../../config/project-id.js';
import type { DatasetName } from '../datasets/index.js';
import { UsageError } from '../errors.js';
import { requireDateRange } from './date-range.js';
import { addDays, isoWeekday, nextMonthStart } from './dates.js';

export const GRAINS = ['day', 'week', 'month', 'range'] as const;
export type Grain = (typeof GRAINS)[number];

/** Why a window is exported; nightly work goes before re-exports and backfills. */
export type WindowKind = 'nightly' | 'reexport' | 'manual';

/** A project's date window, `dateTo` exclusive. */
export interface ProjectWindow {
  projectId: string;
  dateFrom: string;
  dateTo: string;
}

/** What one export job exports: a dataset's window. */
export interface ExportWindow extends ProjectWindow {
  dataset: DatasetName;
}

export { MAX_RANGE_DAYS } from './date-range.js';

export function parseGrain(text: string): Grain {
  if ((GRAINS as readonly string[]).includes(text)) return text as Grain;
  throw new UsageError(`--grain: expected one of ${GRAINS.join(', ')}, got "${text}"`);
}

/** Validates a project id as given on the command line or in a file (rules: config/project-id.ts). */
export function parseProjectId(text: string, input: string): string {
  const id = text.trim();
  const problem = projectIdProblem(id);
  if (problem !== null) throw new UsageError(`${input}: ${problem}`);
  return id;
}

/**
 * Splits [from, to) into windows of a grain: `day` each day; `week` calendar weeks (Monday to
 * Monday) and `month` calendar months, both cut at the range's ends; `range` the whole range.
 */
export function planWindows(projectId: string, fromText: string, toText: string, grain: Grain): ProjectWindow[] {
  const { from, to } = requireDateRange(fromText, toText);
  if (grain === 'range') return [{ projectId, dateFrom: from, dateTo: to }];
  const windows: ProjectWindow[] = [];
  let start = from;
  while (start < to) {
    let end: string;
    if (grain === 'day') end = addDays(start, 1);
    else if (grain === 'week') end = addDays(start, 8 - isoWeekday(start));
    else end = nextMonthStart(start);
    if (end > to) end = to;
    windows.push({ projectId, dateFrom: start, dateTo: end });
    start = end;
  }
  return windows;
}

/**
 * Refuses windows that start after `today` (UTC): nobody has visited those days yet, so exporting
 * them would load nothing and mark the dataset up to date. A window that contains today is fine
 * (`dateTo` is exclusive: `--to` may be tomorrow).
 */
export function refuseFutureWindows(windows: readonly ProjectWindow[], today: string): void {
  const future = windows.find((w) => w.dateFrom > today);
  if (!future) return;
  if (future === windows[0]) throw new UsageError(`--from: ${future.dateFrom} is after today (${today}, UTC): no analytics exist for it yet`);
  throw new UsageError(`--to: the window ${future.dateFrom}..${future.dateTo} starts after today (${today}, UTC): no analytics exist for it yet (--to ${addDays(today, 1)} ends with today)`);
}

/** A stable key for a dataset's window, used for de-duplication of in-flight jobs. */
export function windowKey(window: ExportWindow): string {
  return `${window.dataset}|${encodeURIComponent(window.projectId)}|${window.dateFrom}|${window.dateTo}`;
}
