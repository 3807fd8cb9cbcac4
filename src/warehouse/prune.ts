/**
 * Reclaims the rows of runs no reader can see any more: finished runs that are not the latest
 * complete run of their window (superseded, failed, unstable). Running runs are never touched, and
 * run events are kept as history.
 */
import { selectRows } from './select-rows.js';
import { stringLiteral, tableName } from './sql-text.js';
import type { Warehouse } from './warehouse.js';

export interface PruneResult {
  /** Runs whose stored rows were deleted. */
  runsPruned: number;
}

/** Deletes, from `tables` (row and totals tables keyed by run_id), the rows of runs no reader can see. */
export async function pruneSuperseded(wh: Warehouse, tables: readonly string[]): Promise<PruneResult> {
  const stored = tables.map((table) => `SELECT run_id FROM ${tableName(wh, table)}`).join(' UNION DISTINCT ');
  const rows = await selectRows<{ run_id: string }>(
    wh,
    `SELECT run_id FROM ${tableName(wh, 'export_runs')}
     WHERE status != 'running'
       AND run_id NOT IN (SELECT run_id FROM ${tableName(wh, 'latest_complete_runs')})
       AND run_id IN (${stored})`,
  );
  const runIds = rows.map((row) => row.run_id);
  if (runIds.length === 0) return { runsPruned: 0 };
  // The ids go in as a literal list rather than a subquery: a mutation that reads other tables is
  // refused on replicated tables, and a list keeps the delete exact if a run changes meanwhile.
  // Literals rather than a query parameter, which older servers do not substitute in ALTER.
  // mutations_sync = 2 waits until the rows are gone (on every replica, once there are replicas).
  const list = runIds.map(stringLiteral).join(', ');
  for (const table of tables) {
    await wh.client.command({
      query: `ALTER TABLE ${tableName(wh, table)} DELETE WHERE run_id IN (${list}) SETTINGS mutations_sync = 2`,
    });
  }
  return { runsPruned: runIds.length };
}
