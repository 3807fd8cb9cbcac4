/**
 * Ends the runs of windows that `export cancel` took out of the queue while they waited (for budget
 * or a retry) with no page fetched: each run becomes `cancelled`, so `status` and `export_runs` stop
 * showing it as running. The job's checkpoint may lag the warehouse (a worker killed between
 * storing a batch and saving the checkpoint): a run that has stored rows after all becomes
 * `abandoned` instead, its rows kept for the window's next export to resume exactly.
 */
import { getDataset } from '../datasets/index.js';
import { recordRunEvent, storedRows, type Warehouse } from '../warehouse/index.js';
import type { ExportJobData } from './enqueue.js';
import { runEvent } from './run-claim.js';

export interface EndedRuns {
  cancelled: number;
  /** Runs that had stored rows after all: kept for a resume. */
  abandoned: number;
}

export async function endCancelledRuns(warehouse: Warehouse, windows: readonly ExportJobData[]): Promise<EndedRuns> {
  const ended: EndedRuns = { cancelled: 0, abandoned: 0 };
  for (const window of windows) {
    const checkpoint = window.checkpoint;
    if (!checkpoint) continue;
    const rows = await storedRows(warehouse, getDataset(window.dataset).table, checkpoint.runId);
    if (rows > 0) {
      const why = `export cancel took its job while it waited; its ${rows} staged rows are kept for a resume`;
      await recordRunEvent(warehouse, runEvent(window, { ...checkpoint, rows }, 'abandoned', why));
      ended.abandoned++;
    } else {
      await recordRunEvent(warehouse, runEvent(window, checkpoint, 'cancelled', 'export cancel took its job while it waited, before its first page'));
      ended.cancelled++;
    }
  }
  return ended;
}
