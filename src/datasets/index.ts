/**
 * Every analytics dataset, by name. Adding one: docs/development.md#add-a-dataset (a module here,
 * its name in dataset.ts, a fixture in src/emulator/datasets/, a migration). Nothing else names a dataset.
 */
import { UsageError } from '../errors.js';
import { assistant } from './assistant.js';
import { assistantCallerStats } from './assistant-caller-stats.js';
import { assistantThreads } from './assistant-threads.js';
import { DATASET_NAMES, type Dataset, type DatasetName } from './dataset.js';
import { feedback } from './feedback.js';
import { feedbackByPage } from './feedback-by-page.js';
import { searches } from './searches.js';
import { views } from './views.js';
import { visitors } from './visitors.js';

export { DATASET_NAMES, defineDataset, type Dataset, type DatasetName, type PageView, type Pagination } from './dataset.js';
export { FINDING_KINDS, FindingLog, type Finding, type FindingKind } from './findings.js';
export { PII_MODES, RowContext, type PiiMode } from './row-context.js';

const ALL: readonly Dataset[] = [visitors, views, feedback, feedbackByPage, assistant, assistantCallerStats, searches, assistantThreads];

const BY_NAME = new Map<string, Dataset>(ALL.map((d) => [d.name, d]));

/** Every dataset, in the default priority order of the nightly plan. */
export const DATASETS: readonly Dataset[] = ALL;

export function isDatasetName(name: string): name is DatasetName {
  return (DATASET_NAMES as readonly string[]).includes(name);
}

export function getDataset(name: DatasetName): Dataset {
  const dataset = BY_NAME.get(name);
  if (!dataset) throw new TypeError(`no dataset ${name}`);
  return dataset;
}

/**
 * A comma list of dataset names (`all` = `all`'s expansion), checked: an unknown name is a
 * UsageError naming `input` and the names there are.
 */
export function parseDatasetList(text: string, input: string, all: readonly DatasetName[]): DatasetName[] {
  const names: DatasetName[] = [];
  for (const raw of text.split(',')) {
    const name = raw.trim();
    if (name === '') continue;
    if (name === 'all') names.push(...all);
    else if (isDatasetName(name)) names.push(name);
    else throw new UsageError(`${input}: unknown dataset "${name.slice(0, 40)}" (one of: ${DATASET_NAMES.join(', ')}, all)`);
  }
  if (names.length === 0) throw new UsageError(`${input}: no dataset named`);
  return [...new Set(names)];
}
