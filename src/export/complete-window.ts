/**
 * Complete a window's run: the checks only the whole run can answer (keys seen twice, totals kept),
 * then the one insert that switches readers to it, then reclaiming what no reader sees any more.
 */
import type { Dataset } from '../datasets/index.js';
import type { Logger } from '../logger.js';
import { completeRun, findDuplicateKey, otherRunsOfWindow, pruneSuperseded, type Warehouse } from '../warehouse/index.js';
import { UnstableWindowError } from './errors.js';
import type { ExportCheckpoint, ExportOutcome, ExportTask } from './export-types.js';
import { runEvent } from './run-claim.js';

/** A run whose pages were all fetched and loaded. */
export interface LoadedRun {
  checkpoint: ExportCheckpoint;
  /** Requests the run has sent, counting those after the last checkpoint. */
  requests: number;
  /** Window totals seen on the run's pages (datasets with totals). */
  totals: Record<string, unknown> | undefined;
  /** Every key of the run was held in memory and none was seen twice. */
  keysChecked: boolean;
}

/** Marks the run complete (readers switch to it) once the whole-run checks pass; an UnstableWindowError when they do not. */
export async function completeWindow(warehouse: Warehouse, task: ExportTask, dataset: Dataset, run: LoadedRun, log: Logger): Promise<ExportOutcome> {
  const { checkpoint: cp, requests, totals, keysChecked } = run;
  if (dataset.keyColumn && !keysChecked) {
    const columns = [dataset.keyColumn, ...(dataset.keyWith ?? [])];
    const duplicate = await findDuplicateKey(warehouse, dataset.table, columns, cp.runId);
    if (duplicate !== null) throw new UnstableWindowError(`${columns.join(', ')} ${JSON.stringify(duplicate.slice(0, 80))} seen twice in one run`);
  }
  if (dataset.totalsTable && !totals) throw new UnstableWindowError('window totals were lost with the checkpoint');
  await completeRun(warehouse, {
    ...runEvent(task, { ...cp, requests }, 'running'),
    table: dataset.table,
    totals: dataset.totalsTable && totals ? { table: dataset.totalsTable, columns: totals } : undefined,
  });
  log.info({ event: 'export_complete', rows: cp.rows, pages: cp.pages, requests }, 'window complete');
  await pruneDataset(warehouse, dataset, task, cp.runId, log);
  return { kind: 'complete', runId: cp.runId, rows: cp.rows, pages: cp.pages, requests };
}

/** A nightly window is new (nothing to supersede): prune at most this often per dataset then. */
const NIGHTLY_PRUNE_INTERVAL_MS = 60_000;
const lastPruneAt = new Map<string, number>();

/**
 * Reclaims the rows of this dataset's runs no reader sees any more (the run a re-export superseded,
 * failed runs): only the dataset's own tables are scanned and cleaned. After a re-export or a manual
 * export whose window had earlier runs (which it may supersede) always; after a nightly window, at
 * most once a minute per dataset, so a night of many small windows is not one sweep per window.
 * A manual export of a window no run touched before superseded nothing: like a nightly window, it
 * leaves the sweep (~0.1 s and ~20 MB of engine memory for its join) to the next one that does.
 */
async function pruneDataset(warehouse: Warehouse, dataset: Dataset, task: ExportTask, runId: string, log: Logger): Promise<void> {
  const now = performance.now();
  if (task.kind === 'nightly' && now - (lastPruneAt.get(dataset.name) ?? -Infinity) < NIGHTLY_PRUNE_INTERVAL_MS) return;
  try {
    if (task.kind === 'manual' && (await otherRunsOfWindow(warehouse, task, runId)) === 0) return;
    lastPruneAt.set(dataset.name, now);
    await pruneSuperseded(warehouse, dataset.totalsTable ? [dataset.table, dataset.totalsTable] : [dataset.table]);
  } catch (err) {
    // Pruning only reclaims space; the window is already complete and correct for readers.
    log.warn({ event: 'prune_failed', err }, 'pruning superseded rows failed');
  }
}
