/**
 * Every analytics dataset, by name: the one list of them. A dataset's name, its declaration and
 * its own tables' migration come from its module (one line below); config, the export engine, the
 * warehouse's migrations and the emulator take the names from here. Adding one:
 * docs/development.md#add-a-dataset.
 */
import { UsageError } from '../errors.js';
import { assistant } from './assistant.js';
import { assistantCallerStats } from './assistant-caller-stats.js';
import { assistantThreads } from './assistant-threads.js';
import type { Dataset, DatasetMigration } from './dataset.js';
import { feedback } from './feedback.js';
import { feedbackByPage } from './feedback-by-page.js';
import { searches } from './searches.js';
import { views } from './views.js';
import { visitors } from './visitors.js';

export { defineDataset, type Dataset, type DatasetMigration, type PageView, type Pagination } from './dataset.js';
export { FINDING_KINDS, FindingLog, type Finding, type FindingKind } from './findings.js';
export { PII_MODES, RowContext, type PiiMode } from './row-context.js';

/** In the default priority order of the nightly plan. */
const REGISTRY = {
  visitors,
  views,
  feedback,
  'feedback-by-page': feedbackByPage,
  assistant,
  'assistant-caller-stats': assistantCallerStats,
  searches,
  'assistant-threads': assistantThreads,
} as const satisfies Record<string, Dataset>;

export type DatasetName = keyof typeof REGISTRY;

/** Every name, in the registry's order (a tuple type, as `z.enum` wants). */
export const DATASET_NAMES = Object.keys(REGISTRY) as [DatasetName, ...DatasetName[]];

/** Every dataset, in the default priority order of the nightly plan. */
export const DATASETS: readonly Dataset[] = checkRegistry(REGISTRY);

/** The migrations of the datasets that carry their own tables, for the warehouse's list. */
export const DATASET_MIGRATIONS: readonly DatasetMigration[] = migrationsOf(DATASETS);

/**
 * A registry's datasets, in its order; a declaration named unlike its key, or a fanout from a name
 * the registry does not hold, is a TypeError (run on load, so a bad registry never starts).
 */
export function checkRegistry(registry: Readonly<Record<string, Dataset>>): Dataset[] {
  return Object.entries(registry).map(([key, dataset]) => {
    if (dataset.name !== key) throw new TypeError(`dataset "${key}" declares the name "${dataset.name}"`);
    const { pagination } = dataset;
    if (pagination.kind === 'fanout' && !Object.hasOwn(registry, pagination.source)) throw new TypeError(`dataset "${key}" fans out from unknown "${pagination.source}"`);
    return dataset;
  });
}

/** The migrations the datasets carry, in the datasets' order (the warehouse sorts them by version). */
export function migrationsOf(datasets: readonly Dataset[]): DatasetMigration[] {
  return datasets.flatMap((dataset) => (dataset.migration ? [dataset.migration] : []));
}

export function isDatasetName(name: string): name is DatasetName {
  return Object.hasOwn(REGISTRY, name);
}

/** The dataset of a registered name (a fanout's `source` is a plain string): anything else is a TypeError. */
export function getDataset(name: string): Dataset {
  const dataset: Dataset | undefined = isDatasetName(name) ? REGISTRY[name] : undefined;
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
