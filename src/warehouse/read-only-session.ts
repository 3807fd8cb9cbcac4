/**
 * Where user SQL runs: a connection of its own on which the engine itself enforces read-only and
 * the query's limits, and from which a running query can be stopped. Each engine opens its own
 * (engine-embedded.ts, engine-server.ts); what they share is here.
 */
import type { GateCatalog } from './sql-gate.js';
import type { ResultFormat } from './result-format.js';

export interface EngineRows {
  meta?: Array<{ name: string; type: string }>;
  data: unknown[][];
}

/** What the gate let through: the engine's rendering, and whether it is a SELECT (or SHOW, DESCRIBE, EXPLAIN). */
export interface JudgedStatement {
  sql: string;
  select: boolean;
}

export interface ReadOnlySession {
  /** The engine's one-line rendering of `sql` (comments gone); rejects when it is not exactly one statement. */
  render(sql: string): Promise<string>;
  /** The lines of `EXPLAIN AST <statement>`. */
  explainAst(statement: string): Promise<string[]>;
  catalog(): Promise<GateCatalog>;
  /**
   * Runs the judged statement and yields its result as the engine writes it, a chunk at a time
   * (the next is fetched only when the consumer asks); leaving the loop early ends the query.
   * `signal` also drops a server request (the embedded engine is stopped with stop()).
   */
  stream(statement: JudgedStatement, format: ResultFormat, signal?: AbortSignal): AsyncIterable<Uint8Array>;
  /** Stops what this session is running, from another connection. */
  stop(): Promise<void>;
  close(): Promise<void>;
}

export const RENDER_SQL = 'SELECT formatQuerySingleLine({sql:String}) AS q';

/** The catalog's query; `userFunctions` is the subquery that lists the functions that are not the engine's own. */
export const catalogSql = (userFunctions: string) => `SELECT
  tables.1 AS own,
  tables.2 AS all_tables,
  (SELECT groupArray(name) FROM system.table_functions) AS table_functions,
  (${userFunctions}) AS user_functions,
  (SELECT groupArray(name) FROM system.formats WHERE is_output) AS formats
FROM (SELECT (groupArrayIf(name, database = {db:String}), groupArray(concat(database, '.', name))) AS tables FROM system.tables)`;

/** Runs a query on a session's own connection, with bound parameters, and answers its rows. */
export type SessionRows = (sql: string, params?: Record<string, string>) => Promise<EngineRows>;

/**
 * What the gate asks an engine before it runs anything (render, EXPLAIN AST, the catalog), asked
 * the same way of both: only how a session reaches its rows, and which functions a user defined
 * outside the engine's tables, differ.
 */
export function gateQuestions(
  rows: SessionRows,
  database: string,
  catalogQuery: string,
  moreUserFunctions: () => readonly string[] = () => [],
): Pick<ReadOnlySession, 'render' | 'explainAst' | 'catalog'> {
  return {
    async render(sql) {
      return String((await rows(RENDER_SQL, { sql })).data[0]?.[0] ?? '');
    },
    async explainAst(statement) {
      return (await rows(`EXPLAIN AST ${statement}`)).data.map((row) => String(row[0]));
    },
    async catalog() {
      return toCatalog(database, await rows(catalogQuery, { db: database }), moreUserFunctions());
    },
  };
}

export function toCatalog(database: string, rows: EngineRows, moreUserFunctions: readonly string[] = []): GateCatalog {
  const [own, all, tableFunctions, userFunctions, formats] = (rows.data[0] ?? []) as string[][];
  return {
    database,
    ownTables: new Set(own),
    allTables: new Set(all),
    tableFunctions: new Set(tableFunctions),
    userFunctions: new Set([...(userFunctions ?? []), ...moreUserFunctions]),
    formats: new Set(formats),
  };
}

/** The engine's error code (`Code: 159.` from chDB, `.code` from the server client). */
export function engineErrorCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && /^\d+$/.test(code)) return Number(code);
  const match = err instanceof Error ? /^Code: (\d+)\./.exec(err.message) : null;
  return match ? Number(match[1]) : undefined;
}

/** The engine's message as one line, without codes, versions and the wrapper it was found in. */
export function engineErrorLine(err: unknown): string {
  let line = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
  for (;;) {
    const stripped = line.replace(/^Code: \d+\. /, '').replace(/^DB::Exception: /, '');
    if (stripped === line) break;
    line = stripped;
  }
  return line
    .replace(/:? In scope .*$/, '')
    .replace(/ \(version [^)]*\)/g, '')
    .replace(/ \([A-Z_]+\)\.?$/, '')
    .replace(/ \([A-Z_]+\)\.?$/, '')
    .trim();
}
