/**
 * Rows of export runs of any dataset, loaded in batches, and the findings found on them. The
 * warehouse is the source of truth for what a run has loaded: an export resumes from
 * `runProgress` after a crash (the position and cursor after its last stored batch).
 */
import { toDateTime64 } from './datetime.js';
import { insertRows } from './insert-rows.js';
import { selectRows } from './select-rows.js';
import { isPlainIdentifier, tableName } from './sql-text.js';
import type { Warehouse } from './warehouse.js';

export interface RunWindow {
  dataset: string;
  runId: string;
  projectId: string;
  /** `YYYY-MM-DD`. */
  dateFrom: string;
  /** `YYYY-MM-DD`, exclusive. */
  dateTo: string;
}

export interface RowBatch extends RunWindow {
  table: string;
  /** Position (rows or ids received before the batch) of the batch's first page. */
  batchOffset: number;
  /** Position after the batch's last page: where the next batch starts. */
  batchEnd: number;
  /** Cursor that fetches the page after the batch ('' for offset paging). */
  batchCursor: string;
  /** Column values of each row (the dataset's columns). */
  rows: readonly Record<string, unknown>[];
}

export interface BatchFinding {
  kind: string;
  detail: string;
}

export interface RunProgress {
  /** Position after the last stored batch (0 when none). */
  nextOffset: number;
  /** Cursor after the last stored batch ('' when none or offset paging). */
  cursor: string;
  /** Rows stored for the run. */
  rows: number;
  /** Batches stored for the run. */
  batches: number;
}

/** Dedup token of a batch: the run and its positions, so a replay is stored once and another run's identical rows always are. */
function batchToken(batch: Pick<RowBatch, 'runId' | 'batchOffset' | 'batchEnd'>): string {
  return `${batch.runId}:${batch.batchOffset}:${batch.batchEnd}`;
}

/** Stores a batch in one synchronous insert (nothing for no rows). */
export async function insertRowBatch(wh: Warehouse, batch: RowBatch): Promise<void> {
  const constants = {
    run_id: batch.runId,
    project_id: batch.projectId,
    date_from: batch.dateFrom,
    date_to: batch.dateTo,
    batch_offset: batch.batchOffset,
    batch_end: batch.batchEnd,
    batch_cursor: batch.batchCursor,
  };
  await insertRows(wh, batch.table, batch.rows, { dedupToken: batchToken(batch), constants });
}

/** Stores the findings of a batch, deduplicated with the batch (a replayed batch records them once). */
export async function insertBatchFindings(
  wh: Warehouse,
  batch: RunWindow & { batchOffset: number; batchEnd: number },
  findings: readonly BatchFinding[],
): Promise<void> {
  const observedAt = toDateTime64(new Date());
  await insertRows(
    wh,
    'data_quality_findings',
    findings.map((f) => ({
      dataset: batch.dataset,
      run_id: batch.runId,
      project_id: batch.projectId,
      date_from: batch.dateFrom,
      date_to: batch.dateTo,
      batch_offset: batch.batchOffset,
      kind: f.kind,
      detail: f.detail,
      observed_at: observedAt,
    })),
    { dedupToken: `${batchToken(batch)}:findings` },
  );
}

/** What a run has stored so far. */
export async function runProgress(wh: Warehouse, table: string, runId: string): Promise<RunProgress> {
  const [row] = await selectRows<{ next_offset: number | string; cursor: string; rows: number | string; batches: number | string }>(
    wh,
    `SELECT max(batch_end) AS next_offset, argMax(batch_cursor, batch_end) AS cursor, count() AS rows, uniqExact(batch_offset) AS batches
     FROM ${tableName(wh, table)} WHERE run_id = {runId:String}`,
    { runId },
  );
  return {
    nextOffset: Number(row?.next_offset ?? 0),
    cursor: row?.cursor ?? '',
    rows: Number(row?.rows ?? 0),
    batches: Number(row?.batches ?? 0),
  };
}

/**
 * A key stored more than once in the run (the data moved between pages), or null.
 *
 * Asked once per run, over all its rows. Grouping by the key holds every key in memory at once:
 * +135 MB of the engine's for a 900k-row window, the peak of the whole export. So the keys' 64-bit
 * hashes are sorted first and neighbours compared (+11 MB, and faster): equal keys have equal
 * hashes, so no duplicate can pass. Only when two neighbours match (a duplicate, or a hash
 * collision, about 1 in 10^7 for a million keys) does the grouping run, to name the key or clear it.
 */
export async function findDuplicateKey(wh: Warehouse, table: string, keyColumn: string | readonly string[], runId: string): Promise<string | null> {
  const columns = typeof keyColumn === 'string' ? [keyColumn] : keyColumn;
  for (const column of columns) if (!isPlainIdentifier(column)) throw new TypeError(`not a plain column name: ${column}`);
  const list = columns.join(', ');
  // A key of several columns is hashed as its tuple's text: cityHash64 of a NULL column is NULL.
  const hashed = columns.length === 1 ? `cityHash64(${list})` : `cityHash64(toString(tuple(${list})))`;
  const [screen] = await selectRows<{ equal: number | string }>(
    wh,
    `SELECT count() AS equal FROM (
       SELECT h, lagInFrame(h) OVER (ORDER BY h ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS previous, row_number() OVER (ORDER BY h ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS n
       FROM (SELECT ${hashed} AS h FROM ${tableName(wh, table)} WHERE run_id = {runId:String})
     ) WHERE n > 1 AND h = previous`,
    { runId },
  );
  if (Number(screen?.equal ?? 0) === 0) return null;
  const rows = await selectRows<{ key: string }>(
    wh,
    `SELECT toString(${columns.length === 1 ? list : `tuple(${list})`}) AS key FROM ${tableName(wh, table)} WHERE run_id = {runId:String}
     GROUP BY ${list} HAVING count() > 1 ORDER BY ${list} LIMIT 1`,
    { runId },
  );
  return rows[0]?.key ?? null;
}

/** Rows stored for a run. */
export async function storedRows(wh: Warehouse, table: string, runId: string): Promise<number> {
  const [row] = await selectRows<{ rows: number | string }>(
    wh,
    `SELECT count() AS rows FROM ${tableName(wh, table)} WHERE run_id = {runId:String}`,
    { runId },
  );
  return Number(row?.rows ?? 0);
}
