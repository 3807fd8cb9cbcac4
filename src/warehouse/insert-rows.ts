/**
 * The one way mintpipe inserts: a synchronous JSON insert whose settings are written in the
 * SQL text. On the embedded engine per-call `clickhouse_settings` become session `SET`s that stay
 * in force: a leftover `insert_deduplication_token` makes later untokened inserts vanish as
 * duplicates. The embedded engine also defaults to `async_insert=1` (rows buffered and merged with
 * other inserts), while a deduplication token must name exactly this block and a caller must know
 * its rows are stored when the call returns. So every insert states `async_insert = 0` and its own
 * `insert_deduplication_token`, token or not.
 */
import { Readable } from 'node:stream';
import { drainStream } from '@clickhouse/client';
import { isPlainIdentifier, stringLiteral, tableName } from './sql-text.js';
import type { Warehouse } from './warehouse.js';

export interface InsertRowsOptions {
  /**
   * Deduplication token of the whole insert: an insert repeating a recent token is dropped (on
   * tables with a deduplication window). Empty means none.
   * @default ''
   */
  dedupToken?: string;
  /**
   * Columns with the same value in every row (e.g. a batch's run and window), written once as a
   * prefix of each row instead of copied into every row object. @default none
   */
  constants?: Record<string, unknown>;
}

/** Rows serialized per chunk: the body streams in pieces instead of one string the size of the batch. */
const ROWS_PER_CHUNK = 1000;

/**
 * Inserts `rows` into `table` in one statement; does nothing for no rows. The first row's keys name
 * the columns; a key missing from a later row is inserted as NULL.
 */
export async function insertRows(
  wh: Warehouse,
  table: string,
  rows: readonly Record<string, unknown>[],
  options: InsertRowsOptions = {},
): Promise<void> {
  if (rows.length === 0) return;
  const settings = [
    'async_insert = 0',
    'insert_deduplicate = 1',
    `insert_deduplication_token = ${stringLiteral(options.dedupToken ?? '')}`,
  ].join(', ');
  // Compact rows (arrays in the order of a column list) parse about a third faster than objects.
  const constants = options.constants ?? {};
  const constantColumns = Object.keys(constants);
  const rowColumns = Object.keys(rows[0]!);
  const columns = [...constantColumns, ...rowColumns];
  for (const column of columns) {
    if (!isPlainIdentifier(column)) throw new TypeError(`not a plain column name: ${column}`);
  }
  const query = `INSERT INTO ${tableName(wh, table)} (${columns.join(', ')}) SETTINGS ${settings} FORMAT JSONCompactEachRow`;
  const prefix = constantColumns.length === 0 ? '[' : `${JSON.stringify(constantColumns.map((column) => constants[column] ?? null)).slice(0, -1)},`;
  const chunks: string[] = [];
  for (let start = 0; start < rows.length; start += ROWS_PER_CHUNK) {
    let chunk = '';
    for (const row of rows.slice(start, start + ROWS_PER_CHUNK)) {
      chunk += `${prefix}${JSON.stringify(rowColumns.map((column) => row[column] ?? null)).slice(1)}\n`;
    }
    chunks.push(chunk);
  }
  const result = await wh.client.exec({ query, values: Readable.from(chunks) });
  await drainStream(result.stream);
}
