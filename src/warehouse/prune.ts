/**
 * Reclaims the rows of runs no reader can see any more: finished runs that are not the latest
 * complete run of their window (superseded, failed, unstable). Running runs are never touched, and
 * run events are kept as history. Abandoned runs keep their rows for a resume until a later run of
 * their window completes, or past their retention.
 */
import { toDateTime64 } from './datetime.js';
import { ABANDONED_RETENTION_MS } from './resumable-runs.js';
import { selectRows } from './select-rows.js';
import { stringLiteral, tableName } from './sql-text.js';
import type { Warehouse } from './warehouse.js';

export interface PruneResult {
  /** Runs whose stored rows were deleted. */
  runsPruned: number;
}

export interface PruneOptions {
  /** Abandoned runs older than this lose their rows even without a later complete run. @default ABANDONED_RETENTION_MS (14 days) */
  abandonedRetentionMs?: number;
  /** @default now */
  now?: Date;
}

/** Deletes, from `tables` (row and totals tables keyed by run_id), the rows of runs no reader can see. */
export async function pruneSuperseded(wh: Warehouse, tables: readonly string[], options: PruneOptions = {}): Promise<PruneResult> {
  const stored = tables.map((table) => `SELECT run_id FROM ${tableName(wh, table)}`).join(' UNION DISTINCT ');
  const runs = tableName(wh, 'export_runs');
  const cutoff = new Date((options.now ?? new Date()).getTime() - (options.abandonedRetentionMs ?? ABANDONED_RETENTION_MS));
  // An abandoned run goes once a run of its window that started after it completed (the window
  // moved on), or once it was abandoned longer ago than the retention.
  const rows = await selectRows<{ run_id: string }>(
    wh,
    `SELECT r.run_id AS run_id FROM ${runs} AS r
     LEFT JOIN (
       SELECT dataset, project_id, date_from, date_to, max(started_at) AS last_complete_start
       FROM ${runs} WHERE status = 'complete'
       GROUP BY dataset, project_id, date_from, date_to
     ) AS c ON c.dataset = r.dataset AND c.project_id = r.project_id AND c.date_from = r.date_from AND c.date_to = r.date_to
     WHERE (r.status NOT IN ('running', 'abandoned')
            OR (r.status = 'abandoned' AND (r.finished_at < {cutoff:DateTime64(3)} OR c.last_complete_start > r.started_at)))
       AND r.run_id NOT IN (SELECT run_id FROM ${tableName(wh, 'latest_complete_runs')})
       AND r.run_id IN (${stored})`,
    { cutoff: toDateTime64(cutoff) },
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
