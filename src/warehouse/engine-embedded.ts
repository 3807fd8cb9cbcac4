/**
 * The embedded engine: chDB on `<dataDir>/clickhouse`, held by one process at a time
 * (embedded-lock.ts). The pipeline's client is `@clickhouse/client` over chDB's `Connection` hook,
 * experimental in both packages, so it stays in this file. User SQL runs on chDB sessions of its
 * own, sealed read-only before any user text reaches them.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ClickHouseClient, ClickHouseClientConfigOptions } from '@clickhouse/client';
import type { Session } from 'chdb';
import { holdDirectory, waitForDirectory, type HeldDirectory } from './embedded-lock.js';
import { limitSettings, type QueryLimits } from './query-limits.js';
import { catalogSql, gateQuestions, type EngineRows, type ReadOnlySession, type SessionRows } from './read-only-session.js';
import { ENGINE_FORMATS, OUTPUT_SETTINGS } from './result-format.js';
import { RowCutter } from './row-cutter.js';
import type { EngineOptions, WarehouseEngine } from './warehouse-engine.js';

export function embeddedEngine(options: EngineOptions): WarehouseEngine {
  const path = resolve(join(options.dataDir, 'clickhouse'));
  let held: HeldDirectory<Session> | undefined;
  let client: Promise<ClickHouseClient> | undefined;
  let closed = false;
  return {
    kind: 'embedded',
    database: options.database,
    location: path,
    exclusiveDir: path,
    title: `the embedded warehouse in ${options.dataDir}`,
    setting: 'MINTPIPE_DATA_DIR',
    async open() {
      // Loaded here so a server deployment never pays for the engine.
      const { Session } = await import('chdb');
      held = await waitForDirectory(options.lockWait, () => holdDirectory(options.dataDir, (at) => new Session(at), options.logger));
    },
    connect() {
      if (!held) throw new Error('the embedded warehouse is not open');
      client ??= connectClient(path, options);
      return client;
    },
    readOnlySession: (limits) => openSession(path, options.database, limits),
    async close() {
      if (closed || !held) return;
      closed = true;
      try {
        await (await client?.catch(() => undefined))?.close();
      } finally {
        try {
          held.handle.close();
        } finally {
          held.release();
        }
      }
    },
  };
}

/** The ClickHouse client on a chDB connection to the held directory (the same process may open it again). */
async function connectClient(path: string, options: EngineOptions): Promise<ClickHouseClient> {
  const { createChdbConnection } = await import('chdb/connection');
  const { clientLogOptions, createClient } = await import('./client-factory.js');
  // chdb types its connection against @clickhouse/client-common, which the client now bundles as its
  // own copy: same contract, two declarations, so TypeScript needs telling.
  const connection = createChdbConnection({ path }) as unknown as NonNullable<ClickHouseClientConfigOptions['connection']>;
  const client = createClient({ connection, log: clientLogOptions(options.logger) });
  try {
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
async function openSession(location: string, database: string, limits: QueryLimits): Promise<ReadOnlySession> {
  // The engine is already loaded by open(); this only opens another session on its directory.
  const { Session } = await import('chdb');
  const marker = `mintpipe-query-${randomUUID()}`;
  const session = new Session(location);
  const settings = { ...limitSettings(limits), ...OUTPUT_SETTINGS, log_comment: marker };
  try {
    await session.queryAsync(
      [`USE ${database}`, ...Object.entries(settings).map(([name, value]) => `SET ${name} = ${settingValue(value)}`), 'SET readonly = 1'].join('; '),
      { format: 'TSV' },
    );
  } catch (err) {
    session.close();
    throw err;
  }
  const rows: SessionRows = async (sql, params) => {
    const result = params ? await session.queryBindAsync(sql, params, { format: 'JSONCompact' }) : await session.queryAsync(sql, { format: 'JSONCompact' });
    // A statement with no result (none here after the gate) prints nothing.
    return result.text().trim() === '' ? { data: [] } : result.json<EngineRows>();
  };
  return {
    ...gateQuestions(rows, database, CATALOG_SQL, () => storedSqlFunctions(location)),
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
      const killer = new Session(location);
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

/** A setting's value as SQL (`SET name = value`). */
function settingValue(value: string | number): string {
  return typeof value === 'number' ? String(value) : `'${value.replace(/'/g, "''")}'`;
}
