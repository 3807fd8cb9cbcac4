/**
 * A fanout dataset (one request per id) asks for the ids its source dataset's complete run of the
 * same window listed; until that run exists, the window waits for it (a bounded number of times).
 */
import { getDataset, type Dataset } from '../datasets/index.js';
import type { Logger } from '../logger.js';
import { latestCompleteRun, selectRows, tableName, type Warehouse } from '../warehouse/index.js';
import { MissingSourceRunError } from './errors.js';
import type { ExportCheckpoint, ExportOutcome } from './export-types.js';
import type { ExportWindow } from './windows.js';

/** Waits for a fanout source run: how long each time, and how many times before failing. */
export const SOURCE_WAIT_MS = 5_000;
export const SOURCE_WAITS = 720;

/** The ids to fetch (none for datasets that are not fanouts), or the outcome of waiting for the source run. */
export async function fanoutSource(
  warehouse: Warehouse,
  dataset: Dataset,
  window: ExportWindow,
  cp: ExportCheckpoint,
  log: Logger,
): Promise<{ ids: string[] } | { waiting: ExportOutcome & { kind: 'waiting' } }> {
  const pagination = dataset.pagination;
  if (pagination.kind !== 'fanout') return { ids: [] };
  const ids = await fanoutIds(warehouse, dataset, window);
  if (ids !== null) return { ids };
  const waits = (cp.sourceWaits ?? 0) + 1;
  if (waits > SOURCE_WAITS) {
    throw new MissingSourceRunError(`no complete ${pagination.source} run of ${window.dateFrom}..${window.dateTo}; export it first`);
  }
  log.info({ event: 'export_waiting_for_source', source: pagination.source }, 'waiting for the source dataset');
  return { waiting: { kind: 'waiting', waitMs: SOURCE_WAIT_MS, for: 'source', checkpoint: { ...cp, sourceWaits: waits } } };
}

/** The ids a fanout dataset asks for: listed by the source dataset's complete run of the window, or null when there is none. */
async function fanoutIds(warehouse: Warehouse, dataset: Dataset, window: ExportWindow): Promise<string[] | null> {
  const pagination = dataset.pagination;
  if (pagination.kind !== 'fanout') return [];
  const source = getDataset(pagination.source);
  const run = await latestCompleteRun(warehouse, source.name, window.projectId, window.dateFrom, window.dateTo);
  if (!run) return null;
  const rows = await selectRows<{ id: string }>(warehouse, pagination.idsSql(tableName(warehouse, source.table)), { runId: run.runId });
  return rows.map((row) => row.id).filter((id) => id !== '');
}
