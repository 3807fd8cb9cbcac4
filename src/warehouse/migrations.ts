/**
 * Versioned, idempotent schema migrations. Applied versions are recorded in `schema_migrations`;
 * applying again runs only the versions not recorded yet. The SQL is plain ClickHouse that both
 * engines accept.
 */
import type { Logger } from '../logger.js';
import { toDateTime64 } from './datetime.js';
import { insertRows } from './insert-rows.js';
import type { Migration } from './migration.js';
import { PARTS_CLEANUP_SETTINGS } from './migration-004-parts-cleanup.js';
import { migrations } from './migration-list.js';
import { selectRows } from './select-rows.js';
import { tableName } from './sql-text.js';
import type { Warehouse } from './warehouse.js';

export type { Migration } from './migration.js';

export { migrations } from './migration-list.js';

export interface ApplyMigrationsOptions {
  /** @default the list above */
  migrations?: readonly Migration[];
  logger?: Logger;
}

/** Versions already recorded as applied, ascending. */
export async function appliedMigrations(wh: Warehouse): Promise<number[]> {
  const rows = await selectRows<{ version: number | string }>(
    wh,
    `SELECT DISTINCT version FROM ${tableName(wh, 'schema_migrations')} ORDER BY version`,
  );
  return rows.map((row) => Number(row.version));
}

/** Applies the migrations not recorded yet; returns the versions applied by this call. */
export async function applyMigrations(wh: Warehouse, options: ApplyMigrationsOptions = {}): Promise<number[]> {
  const list = [...(options.migrations ?? migrations)].sort((a, b) => a.version - b.version);
  // Current already: no DDL at all, so a read-only user (the dashboard's, `query`'s) opens it too.
  const recorded = await appliedMigrations(wh).catch((): number[] => []);
  if (list.every((m) => recorded.includes(m.version))) return [];
  await wh.client.command({
    query: `CREATE TABLE IF NOT EXISTS ${tableName(wh, 'schema_migrations')} (
      version UInt32,
      name String,
      applied_at DateTime64(3, 'UTC')
    ) ENGINE = MergeTree ORDER BY version SETTINGS ${PARTS_CLEANUP_SETTINGS}`,
  });
  const applied = new Set(await appliedMigrations(wh));
  const appliedNow: number[] = [];
  for (const migration of list) {
    if (applied.has(migration.version)) continue;
    const startedAt = Date.now();
    for (const statement of migration.statements(wh.database)) {
      await wh.client.command({ query: statement });
    }
    await insertRows(wh, 'schema_migrations', [
      { version: migration.version, name: migration.name, applied_at: toDateTime64(new Date()) },
    ]);
    options.logger?.info(
      { event: 'warehouse.migration', version: migration.version, name: migration.name, ms: Date.now() - startedAt },
      'migration applied',
    );
    appliedNow.push(migration.version);
  }
  return appliedNow;
}
