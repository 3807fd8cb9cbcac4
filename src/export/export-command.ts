/** The `mintpipe` command lines a message names so that a user can resume or retry work as it stands. */
import type { ExportWindow } from './windows.js';

/**
 * One `mintpipe export … --wait` covering `windows`: their projects and datasets, from the earliest
 * start to the latest end, at `grain`. A window already complete in between is exported again; a
 * window still queued is followed, not enqueued twice (its dedup key holds).
 */
export function exportCommand(windows: readonly ExportWindow[], grain: string): string {
  const projects = [...new Set(windows.map((w) => w.projectId))];
  const datasets = [...new Set(windows.map((w) => w.dataset))];
  const from = windows.map((w) => w.dateFrom).sort()[0];
  const to = windows.map((w) => w.dateTo).sort().at(-1);
  const grainFlag = grain === 'day' ? '' : ` --grain ${grain}`;
  return `mintpipe export --project ${projects.join(',')} --dataset ${datasets.join(',')} --from ${from} --to ${to}${grainFlag} --wait`;
}

/** The command that exports exactly one window again (a range window is the window itself). */
export function windowExportCommand(window: Pick<ExportWindow, 'dataset' | 'projectId' | 'dateFrom' | 'dateTo'>): string {
  return `mintpipe export --project ${window.projectId} --dataset ${window.dataset} --from ${window.dateFrom} --to ${window.dateTo} --grain range`;
}
