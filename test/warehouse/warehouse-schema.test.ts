import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appliedMigrations,
  applyMigrations,
  migrations,
  openWarehouse,
  runQuery,
  selectRows,
  type Migration,
  type Warehouse,
} from '../../src/warehouse/index.js';
import { PARTS_CLEANUP_SETTINGS } from '../../src/warehouse/migration-004-parts-cleanup.js';
import { engineName, itEmbeddedOnly, warehouseOptions } from '../support/engine.js';
import { until } from '../support/wait.js';
import { fileTempDir } from '../support/test-env.js';

// One embedded data directory per test file: the engine binds a process to one directory.
const dataDir = fileTempDir('wh-schema');
let wh: Warehouse;

beforeAll(async () => {
  wh = await openWarehouse(warehouseOptions({ database: 'mintpipe_schema_test', dataDir }));
});

afterAll(async () => {
  await wh?.close();
});

async function columns(view: string): Promise<Array<[string, string]>> {
  const rows = await selectRows<{ name: string; type: string }>(wh, `DESCRIBE TABLE ${wh.database}.${view}`);
  return rows.map((row) => [row.name, row.type]);
}

describe('warehouse schema', () => {
  it('opens the engine under test and creates the database', async () => {
    expect(wh.kind).toBe(engineName());
    const rows = await selectRows<{ name: string }>(wh, 'SELECT name FROM system.databases WHERE name = {db:String}', {
      db: wh.database,
    });
    expect(rows).toHaveLength(1);
  });

  it('records every migration once, and applying them again does nothing', async () => {
    expect(await appliedMigrations(wh)).toEqual(migrations.map((m) => m.version));
    expect(await applyMigrations(wh)).toEqual([]);
    expect(await applyMigrations(wh)).toEqual([]);
    const [row] = await selectRows<{ n: number | string }>(wh, `SELECT count() AS n FROM ${wh.database}.schema_migrations`);
    expect(Number(row?.n)).toBe(migrations.length);
  });

  it('applies a new migration exactly once, after the recorded ones', async () => {
    const extra: Migration = {
      version: 9001,
      name: 'test table',
      statements: (db) => [`CREATE TABLE IF NOT EXISTS ${db}.migration_probe (x UInt8) ENGINE = MergeTree ORDER BY x`],
    };
    const list = [...migrations, extra];
    expect(await applyMigrations(wh, { migrations: list })).toEqual([9001]);
    expect(await applyMigrations(wh, { migrations: list })).toEqual([]);
    expect(await appliedMigrations(wh)).toContain(9001);
    const tables = await selectRows<{ name: string }>(
      wh,
      "SELECT name FROM system.tables WHERE database = {db:String} AND name = 'migration_probe'",
      { db: wh.database },
    );
    expect(tables).toHaveLength(1);
  });

  it("runs every migration again over a partly applied one (a crash after its statements, before its record)", async () => {
    for (const migration of migrations) {
      for (const statement of migration.statements(wh.database)) {
        await expect(wh.client.command({ query: statement }), `migration ${migration.version} (${migration.name}): ${statement.slice(0, 80)}`).resolves.toBeDefined();
      }
    }
    expect(await applyMigrations(wh)).toEqual([]);
  });

  it('has every MergeTree table delete merged-away parts three seconds after it starts', async () => {
    const tables = await selectRows<{ name: string; create: string }>(
      wh,
      "SELECT name, create_table_query AS create FROM system.tables WHERE database = {db:String} AND engine LIKE '%MergeTree' ORDER BY name",
      { db: wh.database },
    );
    expect(tables.map((t) => t.name)).toContain('visitor_rows');
    expect(tables.map((t) => t.name)).toContain('schema_migrations');
    // migration_probe is the test table of the test above, not the warehouse's.
    const without = tables.filter((t) => t.name !== 'migration_probe').filter((t) => !/cleanup_delay_period = 3\b/.test(t.create) || !/cleanup_delay_period_random_add = 0\b/.test(t.create));
    expect(without.map((t) => t.name)).toEqual([]);
  });

  itEmbeddedOnly('with those settings, the engine deletes the parts a merge replaced within seconds', async () => {
    const table = `${wh.database}.cleanup_probe`;
    await wh.client.command({ query: `CREATE TABLE ${table} (x UInt32) ENGINE = MergeTree ORDER BY x SETTINGS ${PARTS_CLEANUP_SETTINGS}` });
    for (let i = 0; i < 5; i++) await wh.client.command({ query: `INSERT INTO ${table} VALUES (${i})` });
    await wh.client.command({ query: `OPTIMIZE TABLE ${table} FINAL` });
    const outdated = async () => {
      const [row] = await selectRows<{ n: number | string }>(wh, "SELECT countIf(NOT active) AS n FROM system.parts WHERE database = {db:String} AND table = 'cleanup_probe'", {
        db: wh.database,
      });
      return Number(row?.n);
    };
    expect(await outdated()).toBe(5);
    // Due 3 s after the table started; the engine's default (30 s and up to 10 more) would leave
    // them for the whole wait.
    await until('the outdated rows merged away within 10 s', async () => ((await outdated()) === 0 ? true : undefined), 10_000, 200);
    const [count] = await selectRows<{ n: number | string }>(wh, `SELECT count() AS n FROM ${table}`);
    expect(Number(count?.n)).toBe(5);
  });

  it('gives the visitors view exactly the contract columns', async () => {
    expect(await columns('visitors')).toEqual([
      ['project_id', 'String'],
      ['date_from', 'Date'],
      ['date_to', 'Date'],
      ['path', 'String'],
      ['human', 'UInt64'],
      ['ai', 'UInt64'],
      ['total', 'UInt64'],
    ]);
  });

  it('gives the visitor_totals view exactly the contract columns', async () => {
    expect(await columns('visitor_totals')).toEqual([
      ['project_id', 'String'],
      ['date_from', 'Date'],
      ['date_to', 'Date'],
      ['human', 'UInt64'],
      ['ai', 'UInt64'],
      ['total', 'UInt64'],
    ]);
  });

  it('gives the prompt_outcomes view exactly the contract columns', async () => {
    const described = await columns('prompt_outcomes');
    expect(described.map(([name]) => name)).toEqual([
      'batch_id',
      'prompt_id',
      'project_id',
      'job_id',
      'status',
      'pr_link',
      'sent_at',
      'finished_at',
      'polls',
      'error',
      'kind',
      'chain',
    ]);
    expect(Object.fromEntries(described)).toMatchObject({
      kind: 'String',
      chain: 'Nullable(String)',
      pr_link: 'Nullable(String)',
      sent_at: "Nullable(DateTime64(3, 'UTC'))",
      finished_at: "Nullable(DateTime64(3, 'UTC'))",
      error: 'Nullable(String)',
    });
  });

  it('gives the export_runs view the run columns, finished_at and duration_ms nullable', async () => {
    const described = await columns('export_runs');
    expect(described.map(([name]) => name)).toEqual([
      'run_id',
      'dataset',
      'project_id',
      'date_from',
      'date_to',
      'kind',
      'status',
      'pages',
      'rows',
      'requests',
      'error',
      'started_at',
      'finished_at',
      'duration_ms',
    ]);
    expect(Object.fromEntries(described)).toMatchObject({
      rows: 'UInt64',
      finished_at: "Nullable(DateTime64(3, 'UTC'))",
      duration_ms: 'Nullable(Int64)',
    });
  });

  it('resolves unqualified names in user queries to the warehouse database, as a server does', async () => {
    const result = await runQuery(wh, 'SELECT currentDatabase() AS db, count() AS n FROM visitors');
    expect(result.rows).toEqual([{ db: wh.database, n: 0 }]);
  });
});
