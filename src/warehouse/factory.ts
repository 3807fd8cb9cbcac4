/**
 * Opens the warehouse: the embedded engine (chDB under `@clickhouse/client`) when no server URL is
 * given, a ClickHouse server otherwise. The embedded hook is experimental in both packages, so it
 * stays inside this file; everything else talks to `ClickHouseClient`. Migrations run at open.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
// The client, its log routing and the migrations are loaded on use: a read-only query on the
// embedded engine (openEmbeddedForQueries) needs none of them.
import type { ClickHouseClient, ClickHouseClientConfigOptions } from '@clickhouse/client';
import { UsageError } from '../errors.js';
import type { Logger } from '../logger.js';
import { privateDir } from '../private-files.js';
import { isLongRunning, lockHolder, longRunningHolder, recordedHolder, removePidFile, withOpenLock, writePidFile } from './embedded-lock.js';
import { WarehouseLockedError, WarehouseProcessBoundError, WarehouseUnavailableError } from './errors.js';
import type { Migration } from './migration.js';
import { migrations as allMigrations } from './migration-list.js';
import { isPlainIdentifier } from './sql-text.js';
import type { EmbeddedQueryTarget, Warehouse } from './warehouse.js';

export interface OpenWarehouseOptions {
  /** ClickHouse server URL (`CLICKHOUSE_URL`). @default undefined: the embedded engine under `dataDir` */
  url?: string;
  /** Server user. @default default */
  user?: string;
  /** Server password. @default '' */
  password?: string;
  /** Database of mintpipe's tables and views; created when missing. */
  database: string;
  /** The embedded engine keeps its data in `<dataDir>/clickhouse`. */
  dataDir: string;
  logger?: Logger;
  /** Migrations to apply on open (tests of an upgrade open an older schema). @default every migration */
  migrations?: readonly Migration[];
  /**
   * While another process holds the embedded directory, keep trying for up to `timeoutMs`
   * (calling `onWait` once, so the caller can say it waits) instead of refusing at once. A holder
   * that exits, is killed or is a zombie frees it. @default no wait
   */
  lockWait?: { timeoutMs: number; onWait?: (holderPid: number | undefined) => void; /** Call `onWait` again after this long. @default once */ repeatMs?: number };
}

/** Pause between two tries of a locked directory. */
const LOCK_RETRY_MS = 100;

/** Embedded directories this process has open, with their open-warehouse counts. */
const openEmbedded = new Map<string, number>();

export async function openWarehouse(options: OpenWarehouseOptions): Promise<Warehouse> {
  if (!isPlainIdentifier(options.database)) {
    throw new UsageError(`database: not a database name: "${options.database}" (letters, digits and _)`);
  }
  const startedAt = Date.now();
  const wh = options.url ? await openServer(options, options.url) : await openEmbeddedWaiting(options, () => openEmbeddedEngine(options));
  try {
    const { applyMigrations } = await import('./migrations.js');
    await applyMigrations(wh, { logger: options.logger, migrations: options.migrations });
  } catch (err) {
    await wh.close();
    throw err;
  }
  options.logger?.debug(
    { event: 'warehouse.open', engine: wh.engine, database: wh.database, location: wh.location, ms: Date.now() - startedAt },
    'warehouse open',
  );
  return wh;
}

/** Tries while a dead holder's locks are released by the kernel: 30 × 100 ms. */
const DEAD_HOLDER_RETRIES = 30;
const DEAD_HOLDER_RETRY_MS = 100;

/** Opens the embedded engine, waiting (within `lockWait`) while another process holds it. */
async function openEmbeddedWaiting<T>(options: OpenWarehouseOptions, open: () => Promise<T>): Promise<T> {
  const startedAt = Date.now();
  const timeoutMs = options.lockWait?.timeoutMs ?? 0;
  let told: number | undefined;
  for (;;) {
    try {
      return await open();
    } catch (err) {
      const locked = err instanceof WarehouseLockedError ? err : err instanceof EngineRefusedError ? err.locked : undefined;
      const waitedMs = Date.now() - startedAt;
      if (!locked || waitedMs + LOCK_RETRY_MS > timeoutMs) {
        if (!locked) throw err;
        // Refused with no holder to name, even after waiting: the engine's own reason, whatever it was.
        if (err instanceof EngineRefusedError && locked.holderPid === undefined) throw err.cause;
        throw timeoutMs > 0 ? new WarehouseLockedError(locked.path, locked.holderPid, { cause: err, waitedMs }) : locked;
      }
      if (told === undefined || Date.now() - told >= (options.lockWait?.repeatMs ?? Infinity)) {
        options.lockWait?.onWait?.(locked.holderPid);
        told = Date.now();
      }
      await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
    }
  }
}

/**
 * The engine refused a directory whose status file says a process has it, but no live mintpipe
 * process is named (one between opening the engine and writing its pid file, or one closing):
 * worth another try while waiting.
 */
class EngineRefusedError extends Error {
  constructor(
    readonly locked: WarehouseLockedError,
    options: { cause: unknown },
  ) {
    super('the embedded engine refused the directory', options);
  }
}

/** An engine handle on `<dataDir>/clickhouse` held by this process; `release` gives the directory back. */
interface HeldDirectory<T> {
  path: string;
  handle: T;
  release: () => void;
}

/**
 * Takes `<dataDir>/clickhouse` for this process with the engine handle `open` makes: refused when
 * another live process holds it or this process holds another directory, retried while a dead
 * holder's locks linger, recorded in the pid file while held.
 */
async function holdEmbeddedDirectory<T>(dataDir: string, open: (path: string) => T, logger?: Logger): Promise<HeldDirectory<T>> {
  const path = resolve(join(dataDir, 'clickhouse'));
  for (const [openPath, count] of openEmbedded) {
    if (openPath !== path && count > 0) throw new WarehouseProcessBoundError(path, openPath);
  }
  const recorded = recordedHolder(path);
  if (recorded !== undefined) throw new WarehouseLockedError(path, recorded);
  // A one-shot command never takes the directory from a start or worker that is starting up: it
  // is as good as held (the command waits for it, then goes through it).
  const starting = isLongRunning() ? undefined : longRunningHolder(path);
  if (starting !== undefined) throw new WarehouseLockedError(path, starting.pid);
  // Reserve the directory before the first await, so a concurrent open of another one is refused.
  openEmbedded.set(path, (openEmbedded.get(path) ?? 0) + 1);
  const release = () => {
    const count = (openEmbedded.get(path) ?? 1) - 1;
    if (count > 0) {
      openEmbedded.set(path, count);
      return;
    }
    openEmbedded.delete(path);
    removePidFile(path);
  };
  try {
    // The engine's files are readable by anyone who can enter the directory: 0700 keeps them ours.
    privateDir(dataDir, logger);
    privateDir(path, logger);
    // One mintpipe process at a time asks the engine for the directory, and only when no live holder
    // is recorded: an engine that refuses prints its own lock error to stderr.
    const handle = await withOpenLock(path, async () => {
      const holder = recordedHolder(path) ?? (isLongRunning() ? undefined : longRunningHolder(path)?.pid);
      if (holder !== undefined) throw new WarehouseLockedError(path, holder);
      let opened;
      for (let attempt = 1; ; attempt++) {
        try {
          opened = open(path);
          break;
        } catch (err) {
          const named = lockHolder(path);
          if (named !== undefined) throw new WarehouseLockedError(path, named, { cause: err });
          // The recorded holder is gone, yet the engine still refuses: a process killed a moment
          // ago keeps its file locks until its last thread has exited. Give it a few seconds.
          if (attempt < DEAD_HOLDER_RETRIES) {
            await new Promise((resolve) => setTimeout(resolve, DEAD_HOLDER_RETRY_MS));
            continue;
          }
          if (existsSync(join(path, 'status'))) throw new EngineRefusedError(new WarehouseLockedError(path, undefined), { cause: err });
          throw err;
        }
      }
      writePidFile(path);
      return opened;
    });
    return { path, handle, release };
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * The embedded warehouse held for read-only queries only (a one-shot `mintpipe query`): the
 * engine's own session under the same lock as openWarehouse, without the ClickHouse client, which
 * the queries do not use (they run in sessions of their own, read-only-session.ts): ~0.1 s less
 * to load. Undefined, with the directory released, when the warehouse is not current (a fresh data
 * dir, an older schema): openWarehouse then creates it and applies the migrations.
 */
export async function openEmbeddedForQueries(
  options: Pick<OpenWarehouseOptions, 'database' | 'dataDir' | 'lockWait' | 'logger'>,
): Promise<EmbeddedQueryTarget | undefined> {
  if (!isPlainIdentifier(options.database)) {
    throw new UsageError(`database: not a database name: "${options.database}" (letters, digits and _)`);
  }
  const startedAt = Date.now();
  const { Session } = await import('chdb');
  const held = await openEmbeddedWaiting(options, () => holdEmbeddedDirectory(options.dataDir, (at) => new Session(at), options.logger));
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    try {
      held.handle.close();
    } finally {
      held.release();
    }
  };
  let applied: number[];
  try {
    const result = await held.handle.queryAsync(`SELECT groupUniqArray(toUInt32(version)) FROM ${options.database}.schema_migrations`, { format: 'JSONCompact' });
    applied = (result.json<{ data: number[][][] }>().data[0]?.[0] ?? []).map(Number);
  } catch {
    // No database or no migrations table yet.
    applied = [];
  }
  if (!allMigrations.every((m) => applied.includes(m.version))) {
    await close();
    return undefined;
  }
  options.logger?.debug(
    { event: 'warehouse.open', engine: 'embedded', database: options.database, location: held.path, ms: Date.now() - startedAt },
    'warehouse open',
  );
  return { engine: 'embedded', database: options.database, location: held.path, close };
}

async function openEmbeddedEngine(options: OpenWarehouseOptions): Promise<Warehouse> {
  // Loaded here so a server deployment never pays for the engine (~250 MB resident once loaded).
  const { createChdbConnection } = await import('chdb/connection');
  const { clientLogOptions, createClient } = await import('./client-factory.js');
  const { path, handle: connection, release } = await holdEmbeddedDirectory(options.dataDir, (at) => createChdbConnection({ path: at }), options.logger);
  let closed = false;
  // chdb types its connection against @clickhouse/client-common, which the client now bundles as its
  // own copy: same contract, two declarations, so TypeScript needs telling.
  const client = createClient({
    connection: connection as unknown as NonNullable<ClickHouseClientConfigOptions['connection']>,
    log: clientLogOptions(options.logger),
  });
  const wh: Warehouse = {
    client,
    engine: 'embedded',
    database: options.database,
    location: path,
    async close() {
      if (closed) return;
      closed = true;
      try {
        await client.close();
      } finally {
        release();
      }
    },
  };
  try {
    await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${options.database}` });
    // The engine ignores the client's `database` option; `USE` on this connection makes unqualified
    // names in users' queries (`SELECT * FROM visitors`) resolve as they do against a server.
    await client.command({ query: `USE ${options.database}` });
  } catch (err) {
    await wh.close();
    throw err;
  }
  return wh;
}

async function openServer(options: OpenWarehouseOptions, url: string): Promise<Warehouse> {
  const { clientLogOptions, createClient } = await import('./client-factory.js');
  // Credentials written into the URL win over CLICKHOUSE_USER / CLICKHOUSE_PASSWORD.
  const inUrl = URL.canParse(url) && new URL(url).username !== '';
  const credentials = {
    url,
    ...(inUrl ? {} : { username: options.user ?? 'default', password: options.password ?? '' }),
    log: clientLogOptions(options.logger),
  };
  // A server refuses every request naming a missing database, so create it from a client without one.
  const bootstrap = createClient(credentials);
  try {
    await createDatabase(bootstrap, options.database);
  } catch (err) {
    let reason = err instanceof Error ? (err.message.split('\n')[0] ?? err.name) : String(err);
    for (const secret of [options.password, URL.canParse(url) ? decodeURIComponent(new URL(url).password) : '']) {
      if (secret) reason = reason.split(secret).join('[REDACTED]');
    }
    throw new WarehouseUnavailableError(redactUrl(url), reason || 'no answer', { cause: err });
  } finally {
    await bootstrap.close();
  }
  const client: ClickHouseClient = createClient({ ...credentials, database: options.database });
  let closed = false;
  return {
    client,
    engine: 'server',
    database: options.database,
    location: redactUrl(url),
    async close() {
      if (closed) return;
      closed = true;
      await client.close();
    },
  };
}

/**
 * Creates the database when missing. A read-only user may not run the DDL even when there is
 * nothing to create (a server refuses it before looking): a database that exists is enough.
 */
async function createDatabase(client: ClickHouseClient, database: string): Promise<void> {
  try {
    await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
  } catch (err) {
    const code = Number((err as { code?: unknown }).code);
    if (code !== READONLY && code !== ACCESS_DENIED) throw err;
    const result = await client.query({ query: 'SELECT count() AS n FROM system.databases WHERE name = {db:String}', query_params: { db: database }, format: 'JSONEachRow' });
    const [row] = await result.json<{ n: number | string }>();
    if (Number(row?.n) !== 1) throw err;
  }
}

const READONLY = 164;
const ACCESS_DENIED = 497;

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(unparsable url)';
  }
}
