/**
 * The `query` command's gate and runner: one read-only statement, run on the warehouse, returned
 * with its column names and types.
 */
import { UsageError } from '../errors.js';
import { scanSql, SqlScanError } from './sql-scan.js';
import type { Warehouse } from './warehouse.js';

const ALLOWED = new Set(['SELECT', 'SHOW', 'DESCRIBE', 'DESC', 'EXPLAIN', 'WITH']);

export interface QueryColumn {
  name: string;
  /** ClickHouse type, e.g. `UInt64`, `Nullable(String)`. */
  type: string;
}

export interface QueryResult {
  columns: QueryColumn[];
  rows: Record<string, unknown>[];
}

/**
 * Returns the statement to run (comments and trailing `;` removed) if it is one read-only
 * statement; throws a UsageError naming what was refused otherwise.
 */
export function assertReadOnly(sql: string): string {
  let scanned;
  try {
    scanned = scanSql(sql);
  } catch (err) {
    if (err instanceof SqlScanError) throw new UsageError(`query: ${err.message}`);
    throw err;
  }
  const { code, masked } = scanned;
  const semicolon = masked.indexOf(';');
  if (semicolon !== -1 && masked.slice(semicolon).replace(/;/g, '').trim() !== '') {
    throw new UsageError('query: only one statement is allowed (found text after ";")');
  }
  const end = semicolon === -1 ? code.length : semicolon;
  const statement = code.slice(0, end).trim();
  if (statement === '') throw new UsageError('query: the SQL is empty');
  const head = masked.slice(0, end);
  let keyword = /^[\s(]*([A-Za-z_]+)/.exec(head)?.[1]?.toUpperCase() ?? '';
  // The engine accepts `WITH … INSERT INTO …`; INSERT cannot appear inside a SELECT otherwise.
  if ((keyword === 'WITH' || keyword === 'SELECT') && /\bINSERT\b/i.test(head)) keyword = 'INSERT';
  if (!ALLOWED.has(keyword)) {
    throw new UsageError(
      `query: only SELECT, SHOW, DESCRIBE, EXPLAIN or WITH statements are allowed, got ${keyword || JSON.stringify(statement.slice(0, 20))}`,
    );
  }
  if (/\bFORMAT\s+[A-Za-z]+\s*$/i.test(head)) {
    throw new UsageError('query: leave out the FORMAT clause; the output format is chosen with --format');
  }
  if (/\bINTO\s+OUTFILE\b/i.test(head)) {
    throw new UsageError('query: INTO OUTFILE is not allowed (the result goes to standard output)');
  }
  return statement;
}

/** Runs one read-only statement (see {@link assertReadOnly}). */
export async function runQuery(wh: Warehouse, sql: string): Promise<QueryResult> {
  const statement = assertReadOnly(sql);
  const result = await wh.client.query({
    query: statement,
    format: 'JSONCompact',
    // A server also enforces read-only per request. Not on the embedded engine: there a per-call
    // setting becomes a session SET, and readonly cannot be lifted again once set.
    clickhouse_settings: wh.engine === 'server' ? { readonly: '2' } : undefined,
  });
  const json = await result.json<unknown[]>();
  const columns = (json.meta ?? []).map((column) => ({ name: column.name, type: column.type }));
  const rows = json.data.map((values) => Object.fromEntries(columns.map((column, i) => [column.name, values[i]])));
  return { columns, rows };
}
