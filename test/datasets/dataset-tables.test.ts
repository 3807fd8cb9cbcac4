/**
 * The tables a dataset's own migration creates (src/datasets/dataset-tables.ts), applied to a real
 * warehouse after the shipped migrations: the row and totals tables carry the settings every table
 * must, and the view shows the rows of the latest complete run of each window only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestViewSql, rowTableSql, totalsTableSql } from '../../src/datasets/dataset-tables.js';
import { applyMigrations, insertRowBatch, migrations, openWarehouse, recordRunEvent, selectRows, type Migration, type Warehouse } from '../../src/warehouse/index.js';
import { warehouseOptions } from '../support/engine.js';
import { fileTempDir } from '../support/test-env.js';

const dataDir = fileTempDir('dataset-tables');
let wh: Warehouse;

/** What a ninth dataset's declaration would carry, on the `searches` runs (any registered name). */
const probe: Migration = {
  version: migrations.length + 1,
  name: 'probe dataset',
  statements: (db) => [
    rowTableSql(db, 'probe_rows', 'referrer String, visitors UInt64', 'referrer'),
    totalsTableSql(db, 'probe_window_totals', 'visitors UInt64'),
    latestViewSql(db, 'probe', 'probe_rows', 'searches', 'referrer, visitors'),
    latestViewSql(db, 'probe_totals', 'probe_window_totals', 'searches', 'visitors', true),
  ],
};

beforeAll(async () => {
  wh = await openWarehouse(warehouseOptions({ database: 'mintpipe_dataset_tables', dataDir }));
  await applyMigrations(wh, { migrations: [...migrations, probe] });
});

afterAll(async () => {
  await wh?.close();
});

const window = { dataset: 'searches', projectId: 'p', dateFrom: '2026-10-01', dateTo: '2026-10-02' };

async function loadRun(runId: string, status: 'complete' | 'running', rows: Record<string, unknown>[]): Promise<void> {
  const startedAt = new Date();
  await recordRunEvent(wh, { ...window, runId, kind: 'nightly', status: 'running', startedAt, seq: 1 });
  await insertRowBatch(wh, { ...window, runId, table: 'probe_rows', batchOffset: 0, batchEnd: rows.length, batchCursor: '', rows });
  if (status === 'complete') await recordRunEvent(wh, { ...window, runId, kind: 'nightly', status, rows: rows.length, startedAt, seq: 2 });
}

describe("a dataset's own tables", () => {
  it('are MergeTree tables that dedupe retried inserts and delete merged-away parts three seconds after they start', async () => {
    const tables = await selectRows<{ name: string; create: string }>(
      wh,
      "SELECT name, create_table_query AS create FROM system.tables WHERE database = {db:String} AND startsWith(name, 'probe') AND engine LIKE '%MergeTree' ORDER BY name",
      { db: wh.database },
    );
    expect(tables.map((t) => t.name)).toEqual(['probe_rows', 'probe_window_totals']);
    for (const table of tables) {
      expect(table.create, table.name).toMatch(/ENGINE = MergeTree/);
      expect(table.create, table.name).toMatch(/non_replicated_deduplication_window = 10000/);
      expect(table.create, table.name).toMatch(/cleanup_delay_period = 3, cleanup_delay_period_random_add = 0/);
    }
  });

  it('show, in the view, the rows of the latest complete run of the window and none of a run still going', async () => {
    await loadRun('probe_run_1', 'complete', [{ referrer: 'google.com', visitors: 5, extra: '' }]);
    await loadRun('probe_run_2', 'running', [{ referrer: 'bing.com', visitors: 7, extra: '' }]);
    const rows = await selectRows<{ referrer: string; visitors: number | string }>(wh, `SELECT referrer, visitors FROM ${wh.database}.probe`);
    expect(rows.map((r) => [r.referrer, Number(r.visitors)])).toEqual([['google.com', 5]]);
    const columns = await selectRows<{ name: string }>(wh, `DESCRIBE TABLE ${wh.database}.probe`);
    expect(columns.map((c) => c.name)).toEqual(['project_id', 'date_from', 'date_to', 'referrer', 'visitors']);
  });
});
