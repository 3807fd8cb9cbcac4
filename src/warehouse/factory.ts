/**
 * Opens the warehouse: the embedded engine (chDB under `@clickhouse/client`) when no server URL is
 * given, a ClickHouse server otherwise. The embedded hook is experimental in both packages, so it
 * stays inside this file; everything else talks to `ClickHouseClient`. Migrations run at open.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createClient, type ClickHouseClient, type ClickHouseClientConfigOptions } from '@clickhouse/client';
import { UsageError } from '../errors.js';
import { clientLogOptions } from './client-log.js';
import type { Logger } from '../logger.js';
import { lockHolder, recordedHolder, removePidFile, writePidFile } from './embedded-lock.js';
import { WarehouseLockedError, WarehouseProcessBoundError, WarehouseUnavailableError } from './errors.js';
import { applyMigrations } from './migrations.js';
import { isPlainIdentifier } from './sql-text.js';
import type { Warehouse } from './warehouse.js';

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
}

/** Embedded directories this process has open, with their open-warehouse counts. */
const openEmbedded = new Map<string, number>();

export async function openWarehouse(options: OpenWarehouseOptions): Promise<Warehouse> {
  if (!isPlainIdentifier(options.database)) {
    throw new UsageError(`database: not a database name: "${options.database}" (letters, digits and _)`);
  }
  const startedAt = Date.now();
  const wh = options.url ? await openServer(options, options.url) : await openEmbeddedEngine(options);
  try {
    await applyMigrations(wh, { logger: options.logger });
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

async function openEmbeddedEngine(options: OpenWarehouseOptions): Promise<Warehouse> {
  const path = resolve(join(options.dataDir, 'clickhouse'));
  for (const [openPath, count] of openEmbedded) {
    if (openPath !== path && count > 0) throw new WarehouseProcessBoundError(path, openPath);
  }
  const recorded = recordedHolder(path);
  if (recorded !== undefined) throw new WarehouseLockedError(path, recorded);
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

  let connection;
  try {
    mkdirSync(path, { recursive: true });
    // Loaded here so a server deployment never pays for the engine (~250 MB resident once loaded).
    const { createChdbConnection } = await import('chdb/connection');
    try {
      connection = createChdbConnection({ path });
    } catch (err) {
      const holder = lockHolder(path);
      if (holder !== undefined) throw new WarehouseLockedError(path, holder, { cause: err });
      throw err;
    }
  } catch (err) {
    release();
    throw err;
  }
  writePidFile(path);

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
    await bootstrap.command({ query: `CREATE DATABASE IF NOT EXISTS ${options.database}` });
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
