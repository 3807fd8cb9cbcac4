/**
 * Settings of the datasets: which ones the nightly plan exports and in what order
 * (MINTPIPE_DATASETS), which projects fetch assistant threads (MINTPIPE_ASSISTANT_THREADS), how
 * many days are re-exported, per dataset (MINTPIPE_REEXPORT_DAYS=`3,feedback=30`), and what
 * happens to personal fields (MINTPIPE_PII).
 */
// The registry: its declarations load without zod (their schemas are built on first use), so
// config can take the names from there.
import { DATASET_NAMES, type DatasetName } from '../src/datasets/index.js';
import { PII_MODES, type PiiMode } from '../src/datasets/row-context.js';
import { ConfigError } from './config-error.js';

type Env = Record<string, string | undefined>;

/** The datasets a nightly plan exports by default, in priority order (threads are opt-in per project). */
export const DEFAULT_DATASETS: readonly DatasetName[] = ['visitors', 'views', 'feedback', 'assistant', 'searches', 'feedback-by-page', 'assistant-caller-stats'];

const MAX_REEXPORT_DAYS = 90;

export interface DatasetSettings {
  datasets: DatasetName[];
  assistantThreads: string[];
  reexportDays: { default: number } & Partial<Record<DatasetName, number>>;
  pii: PiiMode;
}

function list(env: Env, key: string): string[] | undefined {
  const raw = env[key];
  if (raw === undefined || raw.trim() === '') return undefined;
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

function datasetName(key: string, name: string): DatasetName {
  if ((DATASET_NAMES as readonly string[]).includes(name)) return name as DatasetName;
  throw new ConfigError(key, `unknown dataset "${name.slice(0, 40)}" (one of: ${DATASET_NAMES.join(', ')})`);
}

function days(key: string, text: string): number {
  if (!/^\d{1,3}$/.test(text) || Number(text) > MAX_REEXPORT_DAYS) throw new ConfigError(key, `expected a number of days from 0 to ${MAX_REEXPORT_DAYS}, got "${text}"`);
  return Number(text);
}

/** `3,feedback=30`: the default and per-dataset days; one given twice is refused, not overwritten. */
function reexportSettings(items: string[]): DatasetSettings['reexportDays'] {
  const key = 'MINTPIPE_REEXPORT_DAYS';
  const given = new Map<string, number>();
  for (const item of items) {
    const eq = item.indexOf('=');
    const name = eq === -1 ? 'default' : datasetName(key, item.slice(0, eq).trim());
    const value = days(key, eq === -1 ? item : item.slice(eq + 1).trim());
    const before = given.get(name);
    if (before !== undefined) throw new ConfigError(key, `${name === 'default' ? 'the default' : name} is given twice (${before} and ${value}): give it once`);
    given.set(name, value);
  }
  return { default: 3, ...Object.fromEntries(given) };
}

export function datasetSettings(env: Env): DatasetSettings {
  const datasets = [...new Set((list(env, 'MINTPIPE_DATASETS') ?? DEFAULT_DATASETS).map((name) => datasetName('MINTPIPE_DATASETS', name)))];
  const assistantThreads = list(env, 'MINTPIPE_ASSISTANT_THREADS') ?? [];
  const reexportDays = reexportSettings(list(env, 'MINTPIPE_REEXPORT_DAYS') ?? []);
  const pii = (env.MINTPIPE_PII ?? 'keep').trim().toLowerCase() || 'keep';
  if (!(PII_MODES as readonly string[]).includes(pii)) throw new ConfigError('MINTPIPE_PII', `expected one of ${PII_MODES.join(', ')}, got "${env.MINTPIPE_PII}"`);
  return { datasets, assistantThreads, reexportDays, pii: pii as PiiMode };
}
