import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

// One embedded data directory per test file: the engine binds a process to one directory.
const dataDir = mkdtempSync(join(tmpdir(), 'mintpipe-wh-schema-'));
let wh: Warehouse;

beforeAll(async () => {
  wh = await openWarehouse({ database: 'mintpipe_schema_test', dataDir });
});

afterAll(async () => {
  await wh?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function columns(view: string): Promise<Array<[string, string]>> {
  const rows = await selectRows<{ name: string; type: string }>(wh, `DESCRIBE TABLE ${wh.database}.${view}`);
  return rows.map((row) => [row.name, row.type]);
}

describe('warehouse schema', () => {
  it('opens the embedded engine and creates the database', async () => {
    expect(wh.engine).toBe('embedded');
    const rows = await selectRows<{ name: string }>(wh, 'SELECT name FROM system.databases WHERE name = {db:String}', {
      db: 'mintpipe_schema_test',
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
    expect(result.rows).toEqual([{ db: 'mintpipe_schema_test', n: 0 }]);
  });
});
