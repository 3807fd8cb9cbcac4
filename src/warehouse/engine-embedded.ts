/**
 * The embedded engine: chDB on `<dataDir>/clickhouse`, held by one process at a time
 * (embedded-lock.ts). The pipeline's client is `@clickhouse/client` over chDB's `Connection` hook,
 * experimental in both packages, so it stays in this file. User SQL runs on chDB sessions of its
 * own, sealed read-only before any user text reaches them. Every statement is counted until it
 * settles (in-flight-queries.ts), so that close() can wait for it, stop it and refuse new ones.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import type { Session } from 'chdb';
import { countedConnection, type ClientConnection } from './counted-connection.js';
import { holdDirectory, waitForDirectory, type HeldDirectory } from './embedded-lock.js';
import { killUntilFound } from './kill-until-found.js';
import { WarehouseClosedError } from './errors.js';
import { DEFAULT_CLOSE_WAIT, InFlightQueries } from './in-flight-queries.js';
import { limitSettings, type QueryLimits } from './query-limits.js';
import { catalogSql, gateQuestions, type EngineRows, type ReadOnlySession, type SessionRows } from './read-only-session.js';
import { ENGINE_FORMATS, OUTPUT_SETTINGS } from './result-format.js';
import { RowCutter } from './row-cutter.js';
import type { EngineOptions, WarehouseEngine } from './warehouse-engine.js';

export function embeddedEngine(options: EngineOptions): WarehouseEngine {
  const path = resolve(join(options.dataDir, 'clickhouse'));
  const title = `the embedded warehouse in ${options.dataDir}`;
  const queries = new InFlightQueries(() => new WarehouseClosedError(title));
  // The pipeline session's log_comment: what close() stops its statements by.
  const marker = `mintpipe-pipeline-${randomUUID()}`;
  let held: HeldDirectory<Session> | undefined;
  let sessionAt: ((at: string) => Session) | undefined;
  let client: Promise<ClickHouseClient> | undefined;
  let closing: Promise<void> | undefined;
  // A process that exits with queries running (its close cut short by a hard stop) would wait for
  // them at exit: they are stopped then. Best effort only: the engine's own exit handlers can
  // still hang on a query stopped too late to report its end, so close() is what callers await.
  const stopAtExit = () => {
    if (sessionAt && queries.size > 0) stopNow(() => sessionAt!(path), queries.markers());
  };
  const close = async (): Promise<void> => {
    const taken = held;
    if (!taken) return queries.refuse();
    const stop = async (markers: string[]) => void (await taken.handle.queryAsync(killSql(markers), { format: 'TSV' }));
    await queries.close(stop, { ...DEFAULT_CLOSE_WAIT, ...options.closeWait }, options.logger, path);
    try {
      await (await client?.catch(() => undefined))?.close();
    } finally {
      try {
        taken.handle.close();
      } finally {
        taken.release();
        // Kept while a query the stop did not end still runs: exiting stops it again.
        if (queries.size === 0) process.off('exit', stopAtExit);
      }
    }
  };
  return {
    kind: 'embedded',
    database: options.database,
    location: path,
    exclusiveDir: path,
    title,
    setting: 'MINTPIPE_DATA_DIR',
    async open() {
      // Loaded here so a server deployment never pays for the engine.
      const { Session } = await import('chdb');
      sessionAt = (at) => new Session(at);
      held = await waitForDirectory(options.lockWait, () => holdDirectory(options.dataDir, sessionAt!, options.logger));
      process.on('exit', stopAtExit);
    },
    async connect() {
      if (!held) throw new Error('the embedded warehouse is not open');
      queries.assertOpen();
      client ??= connectClient(path, options, queries, marker);
      return client;
    },
    readOnlySession: async (limits) => {
      queries.assertOpen();
      return openSession(path, options.database, limits, queries);
    },
    close() {
      closing ??= close();
      return closing;
    },
  };
}

/**
 * Stops the engine's statements that carry one of `markers` (sent from the session that holds the
 * directory). ASYNC: the statement returns at once, the queries end as the engine gets to them.
 */
function killSql(markers: string[]): string {
  // Markers are our own UUID-based names: nothing in them needs escaping.
  return `KILL QUERY WHERE Settings['log_comment'] IN (${markers.map((m) => `'${m}'`).join(', ')}) ASYNC`;
}

/**
 * Stops the statements that carry `markers` synchronously, as an 'exit' listener must, from a
 * session of its own: chDB closes every open session at exit, before this listener runs.
 */
function stopNow(openSession: () => Session, markers: string[]): void {
  try {
    const killer = openSession();
    try {
      killer.query(killSql(markers), 'TSV');
    } finally {
      killer.close();
    }
  } catch {
    // The engine is already going: nothing left to stop.
  }
}

/** The ClickHouse client on a chDB connection to the held directory (the same process may open it again). */
async function connectClient(path: string, options: EngineOptions, queries: InFlightQueries, marker: string): Promise<ClickHouseClient> {
  const { createChdbConnection } = await import('chdb/connection');
  const { clientLogOptions, createClient } = await import('./client-factory.js');
  // chdb types its connection against @clickhouse/client-common, which the client now bundles as its
  // own copy: same contract, two declarations, so TypeScript needs telling.
  const connection = createChdbConnection({ path }) as unknown as ClientConnection;
  const client = createClient({ connection: countedConnection(connection, queries, marker), log: clientLogOptions(options.logger) });
  try {
    // A session setting stays for every later statement on this connection (no call sets its own).
    await client.command({ query: `SET log_comment = '${marker}'` });
    await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${options.database}` });
    // The engine ignores the client's `database` option; `USE` on this connection makes unqualified
    // names in users' queries (`SELECT * FROM visitors`) resolve as they do against a server.
    await client.command({ query: `USE ${options.database}` });
  } catch (err) {
    await client.close();
    throw err;
  }
  return client;
}

/**
 * Reading system.functions cost ~90 ms on every first read in a process (1,825 rows, whatever the
 * filter), about a sixth of a one-shot `mintpipe query`. The same names come cheaper from where
 * the engine keeps them: executable functions in system.user_defined_functions, and SQL functions
 * (CREATE FUNCTION) as one `function_<name>.sql` file each in the data directory's `user_defined`
 * folder, which the engine reads at start and writes on every CREATE FUNCTION.
 */
const CATALOG_SQL = catalogSql(`SELECT groupArray(name) FROM system.user_defined_functions`);

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

/**
 * A second chDB session on the directory (the engine allows several in one process; each has its
 * own settings), sealed before any user text reaches it: `USE` mintpipe's database, `SET` the
 * limits and a marker (`log_comment`), then `SET readonly=1`, which no later statement on that
 * session can lift. It is closed after the one query, so nothing sticks to the pipeline's own
 * session, which never waits behind a user query. A query is stopped with `KILL QUERY` (found by
 * its marker) from a third, short-lived session.
 */
async function openSession(location: string, database: string, limits: QueryLimits, queries: InFlightQueries): Promise<ReadOnlySession> {
  // The engine is already loaded by open(); this only opens another session on its directory.
  const { Session } = await import('chdb');
  const marker = `mintpipe-query-${randomUUID()}`;
  const session = new Session(location);
  // Counted while open (its one query runs between open and close); the engine's close waits for
  // it, stops it by its marker, and closes it when its owner has not.
  let closed!: () => void;
  const close = () => {
    session.close();
    closed();
  };
  queries.count(marker, new Promise<void>((resolve) => (closed = resolve)), close);
  const settings = { ...limitSettings(limits), ...OUTPUT_SETTINGS, log_comment: marker };
  try {
    await session.queryAsync(
      [`USE ${database}`, ...Object.entries(settings).map(([name, value]) => `SET ${name} = ${settingValue(value)}`), 'SET readonly = 1'].join('; '),
      { format: 'TSV' },
    );
  } catch (err) {
    close();
    throw err;
  }
  const rows: SessionRows = async (sql, params) => {
    queries.assertOpen();
    const result = params ? await session.queryBindAsync(sql, params, { format: 'JSONCompact' }) : await session.queryAsync(sql, { format: 'JSONCompact' });
    // A statement with no result (none here after the gate) prints nothing.
    return result.text().trim() === '' ? { data: [] } : result.json<EngineRows>();
  };
  return {
    ...gateQuestions(rows, database, CATALOG_SQL, () => storedSqlFunctions(location)),
    async *stream(statement, format) {
      queries.assertOpen();
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
      const killer = new Session(location);
      try {
        await killUntilFound(async () => (await killer.queryAsync(`KILL QUERY WHERE Settings['log_comment'] = '${marker}' ASYNC`, { format: 'TSV' })).text().trim() !== '');
      } finally {
        killer.close();
      }
    },
    async close() {
      close();
    },
  };
}

/** A setting's value as SQL (`SET name = value`). */
function settingValue(value: string | number): string {
  return typeof value === 'number' ? String(value) : `'${value.replace(/'/g, "''")}'`;
}
