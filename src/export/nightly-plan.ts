/**
 * What one nightly run exports, as data: per project and per dataset of MINTPIPE_DATASETS,
 * yesterday's window, a re-export of the N days before it (late data; N per dataset, since e.g.
 * feedback changes status later), and optionally last week (on Mondays) and last month (on the
 * 1st). Assistant threads follow assistant for the projects that enable them. "Yesterday" is the
 * calendar day before the run's date in the schedule's time zone.
 */
import type { DatasetName } from '../datasets/index.js';
import { addDays, dayInTimeZone, isoWeekday, monthStart } from './dates.js';
import type { ExportWindow, WindowKind } from './windows.js';

export interface NightlySettings {
  projects: string[];
  /** Datasets exported each night, in priority order. @default the seven datasets without threads */
  datasets: DatasetName[];
  /** Projects whose assistant threads are fetched (one request per conversation). @default [] */
  assistantThreads: string[];
  /** Days re-exported, by dataset (`default` for the others). @default { default: 3 } */
  reexportDays: { default: number } & Partial<Record<DatasetName, number>>;
  weekly: boolean;
  monthly: boolean;
  /** IANA time zone of the schedule. @default UTC */
  timezone: string;
}

export interface PlannedWindow extends ExportWindow {
  kind: WindowKind;
}

/** The datasets a project exports, threads right after assistant when the project enables them. */
export function projectDatasets(projectId: string, settings: Pick<NightlySettings, 'datasets' | 'assistantThreads'>): DatasetName[] {
  const list = settings.datasets.filter((d) => d !== 'assistant-threads');
  if (!settings.assistantThreads.includes(projectId) || !list.includes('assistant')) return list;
  const at = list.indexOf('assistant');
  return [...list.slice(0, at + 1), 'assistant-threads', ...list.slice(at + 1)];
}

export function planNightly(runAt: Date, settings: NightlySettings): PlannedWindow[] {
  const today = dayInTimeZone(runAt, settings.timezone);
  const yesterday = addDays(today, -1);
  const windows: PlannedWindow[] = [];
  for (const projectId of settings.projects) {
    for (const dataset of projectDatasets(projectId, settings)) {
      windows.push({ dataset, projectId, dateFrom: yesterday, dateTo: today, kind: 'nightly' });
      const reexportDays = settings.reexportDays[dataset] ?? settings.reexportDays.default;
      for (let back = 1; back <= reexportDays; back++) {
        const day = addDays(yesterday, -back);
        windows.push({ dataset, projectId, dateFrom: day, dateTo: addDays(day, 1), kind: 'reexport' });
      }
      if (settings.weekly && isoWeekday(today) === 1) {
        windows.push({ dataset, projectId, dateFrom: addDays(today, -7), dateTo: today, kind: 'nightly' });
      }
      if (settings.monthly && today.endsWith('-01')) {
        windows.push({ dataset, projectId, dateFrom: monthStart(yesterday), dateTo: today, kind: 'nightly' });
      }
    }
  }
  return windows;
}
