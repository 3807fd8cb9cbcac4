/**
 * The windows a command names: `--project`, `--from`, `--to`, `--grain` and `--dataset`, checked
 * (each refusal a UsageError naming the flag) and expanded into one window per (dataset, project,
 * date window). Without `--dataset`: visitors, as before datasets existed; `all`: MINTPIPE_DATASETS,
 * with assistant threads for the projects that enable them.
 */
import type { MintpipeConfig } from '../../config/index.js';
import { parseDatasetList, type DatasetName } from '../datasets/index.js';
import { UsageError } from '../errors.js';
import { requireDateRange } from '../export/date-range.js';
import { projectDatasets } from '../export/nightly-plan.js';
import { msToDay } from '../export/dates.js';
import { parseGrain, parseProjectId, planWindows, refuseFutureWindows, type ExportWindow, type Grain } from '../export/windows.js';

export interface WindowFlags {
  project: string[];
  from?: string;
  to?: string;
  grain: string;
  dataset?: string;
}

export { collectProjects } from './collect-projects.js';

export function selectDatasets(flags: Pick<WindowFlags, 'dataset'>, projectId: string, config: MintpipeConfig): DatasetName[] {
  if (flags.dataset === undefined) return ['visitors'];
  const all = projectDatasets(projectId, config.export);
  const names = parseDatasetList(flags.dataset, '--dataset', all);
  if (names.includes('assistant-threads') && !config.export.assistantThreads.includes(projectId)) {
    throw new UsageError(
      `--dataset: assistant-threads costs one request per conversation and is off for project "${projectId}"; enable it with MINTPIPE_ASSISTANT_THREADS=${projectId}`,
    );
  }
  return names;
}

export interface SelectOptions {
  /** @default true */
  datesRequired?: boolean;
  /** Today (UTC), `YYYY-MM-DD`: no window may start after it. @default the clock's */
  today?: string;
}

/**
 * The checks of the flags alone, in the order they are said (the projects given, the dates, the
 * grain): they need no config, Redis or warehouse, so a command can make them before it reaches any.
 */
export function checkWindowFlags(flags: WindowFlags, options: Pick<SelectOptions, 'datesRequired'> = {}): { projects: string[]; grain: Grain } {
  const projects = [...new Set(flags.project.map((p) => parseProjectId(p, '--project')))];
  // Checked before the datasets, as before: a missing date is the first thing to say.
  if (options.datesRequired !== false) requireDateRange(flags.from, flags.to);
  return { projects, grain: parseGrain(flags.grain) };
}

export function selectWindows(flags: WindowFlags, config: MintpipeConfig, options: SelectOptions = {}): ExportWindow[] {
  if (flags.project.length === 0) throw new UsageError('--project: required (a Mintlify project id)');
  const { projects, grain } = checkWindowFlags(flags, options);
  const today = options.today ?? msToDay(Date.now());
  return projects.flatMap((projectId) => {
    const datasets = selectDatasets(flags, projectId, config);
    const dates = planWindows(projectId, flags.from!, flags.to!, grain);
    refuseFutureWindows(dates, today);
    // Dataset-major: within a project, windows of a dataset run in its priority order.
    return datasets.flatMap((dataset) => dates.map((w) => ({ ...w, dataset })));
  });
}
