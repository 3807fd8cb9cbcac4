/**
 * Where user SQL runs: a connection of its own on which the engine itself enforces read-only and
 * the query's limits, and from which a running query can be stopped.
 *
 * Embedded: a second chDB session on the warehouse directory (the engine allows several in one
 * process; each has its own settings). The session is sealed before any user text reaches it:
 * `USE` mintpipe's database, `SET` the limits and a marker (`log_comment`), then `SET readonly=1`,
 * which no later statement on that session can lift. It is closed after the one query, so nothing
 * sticks to the pipeline's own session, which never waits behind a user query. A query is stopped
 * with `KILL QUERY` (found by its marker) from a third, short-lived session.
 *
 * Server: every request carries `readonly=1` and the limits; the query has an id of ours, and is
 * stopped with `KILL QUERY WHERE query_id = …` on the pipeline's connection.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ClickHouseSettings, Row, StreamableDataFormat } from '@clickhouse/client';
import { UsageError } from '../errors.js';
import type { GateCatalog } from './sql-gate.js';
import { limitSettings, type QueryLimits } from './query-limits.js';
import { ENGINE_FORMATS, OUTPUT_SETTINGS, type ResultFormat } from './result-format.js';
import { RowCutter } from './row-cutter.js';
import type { QueryTarget, Warehouse } from './warehouse.js';

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

const RENDER_SQL = 'SELECT formatQuerySingleLine({sql:String}) AS q';

/** The catalog's query; `userFunctions` is the subquery that lists the functions that are not the engine's own. */
const catalogSql = (userFunctions: string) => `SELECT
  tables.1 AS own,
  tables.2 AS all_tables,
  (SELECT groupArray(name) FROM system.table_functions) AS table_functions,
  (${userFunctions}) AS user_functions,
  (SELECT groupArray(name) FROM system.formats WHERE is_output) AS formats
FROM (SELECT (groupArrayIf(name, database = {db:String}), groupArray(concat(database, '.', name))) AS tables FROM system.tables)`;

/** On a server: SQL and executable user-defined functions alike. */
const SERVER_CATALOG_SQL = catalogSql(`SELECT groupArray(name) FROM system.functions WHERE origin != 'System'`);

/**
 * Embedded: reading system.functions cost ~90 ms on every first read in a process (1,825 rows,
 * whatever the filter), about a sixth of a one-shot `mintpipe query`. The same names come cheaper
 * from where the engine keeps them: executable functions in system.user_defined_functions, and
 * SQL functions (CREATE FUNCTION) as one `function_<name>.sql` file each in the data directory's
 * `user_defined` folder, which the engine reads at start and writes on every CREATE FUNCTION.
 */
const EMBEDDED_CATALOG_SQL = catalogSql(`SELECT groupArray(name) FROM system.user_defined_functions`);

/** The names of the SQL functions stored under `location` (the engine's escaping undone: `%XX` is a byte). */
function storedSqlFunctions(location: string): string[] {
  let files: string[];
  try {
    files = readdirSync(join(location, 'user_defined'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return files.flatMap((file) => {
    const match = /^function_(.+)\.sql$/.exec(file);
    if (!match) return [];
    const bytes = match[1]!.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return [Buffer.from(bytes, 'latin1').toString('utf8')];
  });
}

function toCatalog(database: string, rows: EngineRows, moreUserFunctions: readonly string[] = []): GateCatalog {
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

export async function openReadOnlySession(wh: QueryTarget, limits: QueryLimits): Promise<ReadOnlySession> {
  return wh.engine === 'embedded' ? openEmbedded(wh, limits) : openServer(wh, limits);
}

function settingValue(value: string | number): string {
  return typeof value === 'number' ? String(value) : `'${value.replace(/'/g, "''")}'`;
}

async function openEmbedded(wh: Pick<QueryTarget, 'database' | 'location'>, limits: QueryLimits): Promise<ReadOnlySession> {
  // The engine is already loaded by the warehouse; this only opens another session on its directory.
  const { Session } = await import('chdb');
  const marker = `mintpipe-query-${randomUUID()}`;
  const session = new Session(wh.location);
  const settings = { ...limitSettings(limits), ...OUTPUT_SETTINGS, log_comment: marker };
  try {
    await session.queryAsync(
      [
        `USE ${wh.database}`,
        ...Object.entries(settings).map(([name, value]) => `SET ${name} = ${settingValue(value)}`),
        'SET readonly = 1',
      ].join('; '),
      { format: 'TSV' },
    );
  } catch (err) {
    session.close();
    throw err;
  }
  const rows = async (sql: string, params?: Record<string, string>): Promise<EngineRows> => {
    const result = params
      ? await session.queryBindAsync(sql, params, { format: 'JSONCompact' })
      : await session.queryAsync(sql, { format: 'JSONCompact' });
    // A statement with no result (none here after the gate) prints nothing.
    return result.text().trim() === '' ? { data: [] } : result.json<EngineRows>();
  };
  return {
    async render(sql) {
      return String((await rows(RENDER_SQL, { sql })).data[0]?.[0] ?? '');
    },
    async explainAst(statement) {
      return (await rows(`EXPLAIN AST ${statement}`)).data.map((row) => String(row[0]));
    },
    async catalog() {
      return toCatalog(wh.database, await rows(EMBEDDED_CATALOG_SQL, { db: wh.database }), storedSqlFunctions(wh.location));
    },
    async *stream(statement, format) {
      // The engine streams only SELECTs; SHOW, DESCRIBE and EXPLAIN list the catalog or a plan, small
      // enough to come in one piece.
      if (!statement.select) {
        yield (await session.queryAsync(statement.sql, { format: ENGINE_FORMATS[format] })).bytes();
        return;
      }
      // One chunk per engine block, fetched off the main thread. The engine writes each chunk as a
      // whole output, header included: the header is passed on once.
      let header: Buffer | undefined;
      for await (const chunk of session.queryStream(statement.sql, { format: ENGINE_FORMATS[format] })) {
        const raw = chunk.raw();
        const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
        if (header === undefined) {
          header = new RowCutter(format, 0).take(bytes);
          yield bytes;
        } else {
          yield header.length > 0 && bytes.subarray(0, header.length).equals(header) ? bytes.subarray(header.length) : bytes;
        }
      }
    },
    async stop() {
      const killer = new Session(wh.location);
      try {
        await killer.queryAsync(`KILL QUERY WHERE Settings['log_comment'] = '${marker}' ASYNC`, { format: 'TSV' });
      } finally {
        killer.close();
      }
    },
    async close() {
      session.close();
    },
  };
}

/**
 * The user's own `readonly` on a server (its profile's): 0 for the app user, 2 for a read-only user
 * that may still set the query's limits. A server refuses any change of `readonly` under 2 and of
 * every setting under 1, so mintpipe sends `readonly=1` only where it is 0 and refuses a user at 1.
 */
async function profileReadonly(wh: Warehouse): Promise<number> {
  const result = await wh.client.query({ query: "SELECT toUInt8(getSetting('readonly')) AS r", format: 'JSONEachRow' });
  const [row] = await result.json<{ r: number | string }>();
  const readonly = Number(row?.r ?? 0);
  if (readonly === 1) {
    throw new UsageError(
      `query: the ClickHouse user has readonly=1, under which no query limit can be set; give it a profile with readonly=2 (docs/deploy.md)`,
    );
  }
  return readonly;
}

async function openServer(wh: Warehouse, limits: QueryLimits): Promise<ReadOnlySession> {
  const queryId = `mintpipe-query-${randomUUID()}`;
  const readonly = (await profileReadonly(wh)) === 0 ? { readonly: '1' } : {};
  // readonly last: the server applies a request's settings in order, and after readonly=1 none
  // could be changed. A server also drops a read-only query whose HTTP client went away.
  // 64-bit integers as JSON numbers, as the embedded engine gives them: a server quotes them by
  // default (before 25.8, and wherever its profile says so), which made counts strings.
  const gateSettings = { output_format_json_quote_64bit_integers: 0, ...readonly } as ClickHouseSettings;
  // The limits are the user query's: the gate's own reads (system.functions costs more on a
  // server than embedded) must not be stopped by a short --timeout.
  const settings = {
    ...limitSettings(limits),
    ...OUTPUT_SETTINGS,
    log_comment: queryId,
    cancel_http_readonly_queries_on_client_close: 1,
    ...readonly,
  } as ClickHouseSettings;
  // exec, not query: query() appends `FORMAT …` to the SQL, which binds to the inner SELECT of an
  // EXPLAIN; the format comes from default_format instead, for the statement as a whole.
  const rows = async (
    query: string,
    extra: { query_params?: Record<string, string>; query_id?: string; abort_signal?: AbortSignal } = {},
    use: ClickHouseSettings = gateSettings,
  ): Promise<EngineRows> => {
    const result = await wh.client.exec({ query, clickhouse_settings: { default_format: 'JSONCompact', ...use }, ...extra });
    const chunks: Buffer[] = [];
    for await (const chunk of result.stream) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    return text.trim() === '' ? { data: [] } : (JSON.parse(text) as EngineRows);
  };
  return {
    async render(sql) {
      return String((await rows(RENDER_SQL, { query_params: { sql } })).data[0]?.[0] ?? '');
    },
    async explainAst(statement) {
      return (await rows(`EXPLAIN AST ${statement}`)).data.map((row) => String(row[0]));
    },
    async catalog() {
      return toCatalog(wh.database, await rows(SERVER_CATALOG_SQL, { query_params: { db: wh.database } }));
    },
    async *stream(statement, format, signal) {
      const engineFormat = ENGINE_FORMATS[format] as StreamableDataFormat;
      const result = await wh.client.exec({
        query: statement.sql,
        clickhouse_settings: { default_format: engineFormat, ...settings },
        query_id: queryId,
        abort_signal: signal,
      });
      // The client's own line splitter, which also finds an error the server writes mid-stream.
      const { ResultSet } = await import('@clickhouse/client');
      const lines = ResultSet.instance({
        stream: result.stream,
        format: engineFormat,
        query_id: queryId,
        response_headers: result.response_headers,
        log_error: () => undefined,
      }).stream<unknown>();
      try {
        for await (const batch of lines) yield Buffer.from((batch as Row[]).map((row) => `${row.text}\n`).join(''));
      } finally {
        // Leaving early drops the request: the server stops a read-only query whose client went away.
        lines.destroy();
      }
    },
    async stop() {
      await wh.client.command({ query: `KILL QUERY WHERE query_id = '${queryId}' ASYNC` });
    },
    async close() {},
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
