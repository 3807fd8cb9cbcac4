/**
 * Nightly triage (`MINTPIPE_TRIAGE`): after the night's plan, one job per recipe that waits until
 * that night's export windows of the datasets the recipe reads are complete, then sends the
 * recipe's rows for the night's projects, creates allowed, at most `MINTPIPE_TRIAGE_MAX_JOBS` per
 * project, keyed and deduped against the ledger as `triage run` does. The sends go through the
 * prompts queue, under the message budget.
 */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { dedupeKeys, type KeyLedgerEntry } from '../prompts/dedupe-keys.js';
import type { PromptStatus } from '../prompts/prompt-status.js';
import { submitBatch } from '../prompts/submit-batch.js';
import type { DatasetName } from '../datasets/index.js';
import { keySendsSql, type KeySendRow } from '../warehouse/prompt-key-sends.js';
import { runQuery } from '../warehouse/read-only-query.js';
import { stringLiteral } from '../warehouse/sql-text.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { loadRecipe } from './load-recipes.js';
import { triageRows } from './recipe-rows.js';
import { recipeSql } from './recipe-sql.js';

export interface NightWindow {
  dataset: DatasetName;
  projectId: string;
  dateFrom: string;
  dateTo: string;
}

export interface TriageNightData {
  recipe: string;
  /** The night's date (YYYY-MM-DD, the schedule's time zone). */
  night: string;
  /** When the night was planned: a window counts once a run of it completed after this. */
  plannedAtMs: number;
  /** The night's windows of the datasets the recipe reads. */
  windows: NightWindow[];
  projects: string[];
}

/** The night's triage jobs' data: one per recipe, with the planned windows it reads. */
export function planTriageNight(
  recipes: readonly string[],
  windows: readonly NightWindow[],
  options: { night: string; plannedAtMs: number; projects: string[]; recipesDir: string | undefined },
): TriageNightData[] {
  return recipes.map((name) => {
    const reads = new Set<string>(loadRecipe(name, options.recipesDir).reads);
    const own = windows.filter((w) => reads.has(w.dataset)).map(({ dataset, projectId, dateFrom, dateTo }) => ({ dataset, projectId, dateFrom, dateTo }));
    return { recipe: name, night: options.night, plannedAtMs: options.plannedAtMs, windows: own, projects: options.projects };
  });
}

/** How many of the windows have a run that completed after `sinceMs`. */
export async function completedWindows(wh: Warehouse, windows: readonly NightWindow[], sinceMs: number): Promise<number> {
  if (windows.length === 0) return 0;
  const tuples = windows.map((w) => `(${[w.dataset, w.projectId, w.dateFrom, w.dateTo].map(stringLiteral).join(', ')})`).join(', ');
  const result = await runQuery(
    wh,
    `SELECT count() AS n FROM (
       SELECT DISTINCT dataset, project_id, date_from, date_to FROM export_run_events
       WHERE status = 'complete' AND toUnixTimestamp64Milli(event_at) >= ${Math.floor(sinceMs)}
         AND (dataset, project_id, toString(date_from), toString(date_to)) IN (${tuples}))`,
    { timeoutMs: 30_000, maxRows: 1 },
  );
  return Number(result.rows[0]?.n ?? 0);
}

export interface NightlyTriageDeps {
  warehouse: Warehouse;
  redis: Redis;
  /** The prompts queue. */
  queue: Queue;
  prefix: string;
  maxJobs: number;
  recipesDir: string | undefined;
  secrets: ReadonlyArray<string | undefined>;
  /** @default 14 */
  dedupeDays?: number;
  now?: () => number;
}

export interface NightlyTriageResult {
  batchId: string | null;
  sent: number;
  skipped: number;
}

const WINDOW_DAYS = 7;
const DAY_MS = 86_400_000;

export async function runNightlyTriage(deps: NightlyTriageDeps, data: TriageNightData): Promise<NightlyTriageResult> {
  const now = deps.now?.() ?? Date.now();
  const recipe = loadRecipe(data.recipe, deps.recipesDir);
  const sinceDate = new Date(now - WINDOW_DAYS * DAY_MS).toISOString().slice(0, 10);
  const result = await runQuery(deps.warehouse, recipeSql(recipe, { project: '', sinceDate }), { timeoutMs: 120_000, maxRows: 100_000 });
  const projects = new Set(data.projects);
  const rows = triageRows(recipe, (result.rows as Array<Record<string, unknown>>).filter((r) => projects.has(String(r.project_id))), {
    days: WINDOW_DAYS,
    maxJobs: deps.maxJobs,
    secrets: deps.secrets,
  });
  const lines = rows.map((r, i) => ({ projectId: r.projectId, prompt: r.prompt, key: r.key, sources: r.sources, line: i + 1 }));
  const keys = lines.map((l) => l.key);
  const ledger = keys.length === 0 ? [] : ((await runQuery(deps.warehouse, keySendsSql(keys), { timeoutMs: 30_000, maxRows: 1_000_000 })).rows as unknown as KeySendRow[]);
  const entries: KeyLedgerEntry[] = ledger.map((r) => ({
    projectId: r.k_project_id,
    key: r.k_key,
    batchId: r.k_batch_id,
    promptId: r.k_prompt_id,
    sentAtMs: Number(r.k_sent_ms) > 0 ? Number(r.k_sent_ms) : null,
    status: r.k_status as PromptStatus,
    lastAtMs: Number(r.k_last_ms),
  }));
  const { send, skipped, salt } = dedupeKeys(lines, entries, { nowMs: now, dedupeDays: deps.dedupeDays ?? 14 });
  if (send.length === 0) return { batchId: null, sent: 0, skipped: skipped.length };
  const submitted = await submitBatch({ redis: deps.redis, queue: deps.queue, prefix: deps.prefix }, send, {
    allowCreate: true,
    source: `triage ${data.recipe} (nightly ${data.night})`,
    ...(salt === undefined ? {} : { salt }),
  });
  return { batchId: submitted.batchId, sent: send.length, skipped: skipped.length };
}
