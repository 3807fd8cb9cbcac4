/**
 * Opens the warehouse on the engine the settings name, and applies the migrations. Which engine
 * is decided here and nowhere else (warehouseEngine); everything else asks the engine
 * (warehouse-engine.ts) for what it needs.
 */
import { UsageError } from '../errors.js';
import { embeddedEngine } from './engine-embedded.js';
import { serverEngine } from './engine-server.js';
import type { Migration } from './migration.js';
import { migrations as allMigrations } from './migration-list.js';
import { DEFAULT_QUERY_LIMITS } from './query-limits.js';
import { engineErrorCode, type ReadOnlySession } from './read-only-session.js';
import { RowsCollector } from './rows-collector.js';
import { isPlainIdentifier } from './sql-text.js';
import type { Warehouse } from './warehouse.js';
import type { EngineOptions, WarehouseEngine } from './warehouse-engine.js';

export interface OpenWarehouseOptions extends EngineOptions {
  /** Migrations to apply on open (tests of an upgrade open an older schema). @default every migration */
  migrations?: readonly Migration[];
}

/** The engine the settings name, not open yet: a ClickHouse server when a URL is given, else the embedded engine under `dataDir`. */
export function warehouseEngine(options: EngineOptions): WarehouseEngine {
  if (!isPlainIdentifier(options.database)) {
    throw new UsageError(`database: not a database name: "${options.database}" (letters, digits and _)`);
  }
  return options.url ? serverEngine({ ...options, url: options.url }) : embeddedEngine(options);
}

/** The engine of a mintpipe configuration (or of a reader's settings), not open yet. */
export function configuredEngine(settings: { dataDir: string; clickhouse: Pick<EngineOptions, 'url' | 'user' | 'password' | 'database'> }): WarehouseEngine {
  return warehouseEngine({ ...settings.clickhouse, dataDir: settings.dataDir });
}

/** The pipeline's warehouse: the engine open, its client made and the migrations applied. */
export async function openWarehouse(options: OpenWarehouseOptions): Promise<Warehouse> {
  const startedAt = Date.now();
  const engine = warehouseEngine(options);
  await engine.open();
  try {
    const wh = await withClient(engine);
    const { applyMigrations } = await import('./migrations.js');
    await applyMigrations(wh, { logger: options.logger, migrations: options.migrations });
    logOpen(options, engine, startedAt);
    return wh;
  } catch (err) {
    await engine.close();
    throw err;
  }
}

/**
 * The engine held for read-only queries (a one-shot `mintpipe query`), which run in sessions of
 * their own: on a current warehouse the ClickHouse client is not even loaded. A fresh or older
 * one is brought up to date first, through the client.
 */
export async function openForQueries(options: EngineOptions): Promise<WarehouseEngine> {
  const startedAt = Date.now();
  const engine = warehouseEngine(options);
  await engine.open();
  try {
    if (!(await schemaIsCurrent(engine))) {
      const { applyMigrations } = await import('./migrations.js');
      await applyMigrations(await withClient(engine), { logger: options.logger });
    }
  } catch (err) {
    await engine.close();
    throw err;
  }
  logOpen(options, engine, startedAt);
  return engine;
}

async function withClient(engine: WarehouseEngine): Promise<Warehouse> {
  const client = await engine.connect();
  const { kind, database, location, exclusiveDir, title, setting } = engine;
  return { client, kind, database, location, exclusiveDir, title, setting, readOnlySession: (limits) => engine.readOnlySession(limits), close: () => engine.close() };
}

/** The engine's codes for a database or table that does not exist (yet). */
const UNKNOWN_TABLE = 60;
const UNKNOWN_DATABASE = 81;
const notCreatedYet = (err: unknown) => [UNKNOWN_TABLE, UNKNOWN_DATABASE].includes(engineErrorCode(err) ?? 0);

/** True when every migration is recorded; read on a read-only session, as the queries will be. */
async function schemaIsCurrent(engine: WarehouseEngine): Promise<boolean> {
  let session: ReadOnlySession;
  try {
    session = await engine.readOnlySession(DEFAULT_QUERY_LIMITS);
  } catch (err) {
    if (notCreatedYet(err)) return false;
    throw err;
  }
  try {
    const collector = new RowsCollector();
    const sql = `SELECT DISTINCT toUInt32(version) AS v FROM ${engine.database}.schema_migrations`;
    for await (const chunk of session.stream({ sql, select: true }, 'rows')) collector.add(chunk);
    const applied = collector.result().rows.map((row) => Number(row.v));
    return allMigrations.every((m) => applied.includes(m.version));
  } catch (err) {
    if (notCreatedYet(err)) return false;
    throw err;
  } finally {
    await session.close();
  }
}

function logOpen(options: EngineOptions, engine: WarehouseEngine, startedAt: number): void {
  options.logger?.debug(
    { event: 'warehouse.open', engine: engine.kind, database: engine.database, location: engine.location, ms: Date.now() - startedAt },
    'warehouse open',
  );
}
