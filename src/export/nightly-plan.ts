/**
 * What one nightly run exports, as data: per project, yesterday's window, a re-export of the N
 * days before it (late data), and optionally last week (on Mondays) and last month (on the 1st).
 * "Yesterday" is the calendar day before the run's date in the schedule's time zone.
 */
import { addDays, dayInTimeZone, isoWeekday, monthStart } from './dates.js';
import type { ExportWindow, WindowKind } from './windows.js';

export interface NightlySettings {
  projects: string[];
  /** @default 3 */
  reexportDays: number;
  weekly: boolean;
  monthly: boolean;
  /** IANA time zone of the schedule. @default UTC */
  timezone: string;
}

export interface PlannedWindow extends ExportWindow {
  kind: WindowKind;
}

export function planNightly(runAt: Date, settings: NightlySettings): PlannedWindow[] {
  const today = dayInTimeZone(runAt, settings.timezone);
  const yesterday = addDays(today, -1);
  const windows: PlannedWindow[] = [];
  for (const projectId of settings.projects) {
    windows.push({ projectId, dateFrom: yesterday, dateTo: today, kind: 'nightly' });
    for (let back = 1; back <= settings.reexportDays; back++) {
      const day = addDays(yesterday, -back);
      windows.push({ projectId, dateFrom: day, dateTo: addDays(day, 1), kind: 'reexport' });
    }
    if (settings.weekly && isoWeekday(today) === 1) {
      windows.push({ projectId, dateFrom: addDays(today, -7), dateTo: today, kind: 'nightly' });
    }
    if (settings.monthly && today.endsWith('-01')) {
      windows.push({ projectId, dateFrom: monthStart(yesterday), dateTo: today, kind: 'nightly' });
    }
  }
  return windows;
}
