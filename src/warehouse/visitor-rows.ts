/**
 * Visitor rows of export runs, loaded in batches. The warehouse is the source of truth for what a
 * run has loaded: an export resumes from `runProgress` after a crash.
 */
import { insertRows } from './insert-rows.js';
import { selectRows } from './select-rows.js';
import { tableName } from './sql-text.js';
import type { Warehouse } from './warehouse.js';

export interface VisitorRow {
  path: string;
  human: number;
  ai: number;
  total: number;
}

export interface VisitorBatch {
  runId: string;
  projectId: string;
  /** `YYYY-MM-DD`. */
  dateFrom: string;
  /** `YYYY-MM-DD`, exclusive. */
  dateTo: string;
  /** API offset of the batch's first page. */
  batchOffset: number;
  /** API offset after the batch's last page: where the next batch starts. */
  batchEnd: number;
  rows: readonly VisitorRow[];
}

export interface RunProgress {
  /** Offset after the last stored batch (0 when none). */
  nextOffset: number;
  /** Rows stored for the run. */
  rows: number;
  /** Batches stored for the run. */
  batches: number;
}

/**
 * Stores a batch in one synchronous insert. Its deduplication token names the run and the offsets,
 * so a replayed batch is stored once while another run's identical rows are always stored.
 */
export async function insertVisitorBatch(wh: Warehouse, batch: VisitorBatch): Promise<void> {
  const rows = batch.rows.map((row) => ({
    run_id: batch.runId,
    project_id: batch.projectId,
    date_from: batch.dateFrom,
    date_to: batch.dateTo,
    path: row.path,
    human: row.human,
    ai: row.ai,
    total: row.total,
    batch_offset: batch.batchOffset,
    batch_end: batch.batchEnd,
  }));
  await insertRows(wh, 'visitor_rows', rows, { dedupToken: `${batch.runId}:${batch.batchOffset}:${batch.batchEnd}` });
}

/** What a run has stored so far. */
export async function runProgress(wh: Warehouse, runId: string): Promise<RunProgress> {
  const [row] = await selectRows<{ next_offset: number | string; rows: number | string; batches: number | string }>(
    wh,
    `SELECT max(batch_end) AS next_offset, count() AS rows, uniqExact(batch_offset) AS batches
     FROM ${tableName(wh, 'visitor_rows')} WHERE run_id = {runId:String}`,
    { runId },
  );
  return { nextOffset: Number(row?.next_offset ?? 0), rows: Number(row?.rows ?? 0), batches: Number(row?.batches ?? 0) };
}

/** A path stored more than once in the run (the data moved between pages), or null. */
export async function findDuplicatePath(wh: Warehouse, runId: string): Promise<string | null> {
  const rows = await selectRows<{ path: string }>(
    wh,
    `SELECT path FROM ${tableName(wh, 'visitor_rows')} WHERE run_id = {runId:String}
     GROUP BY path HAVING count() > 1 ORDER BY path LIMIT 1`,
    { runId },
  );
  return rows[0]?.path ?? null;
}
