/**
 * Upgrade in place: a warehouse written by the version before datasets (schema 1) opens with
 * every migration and keeps its data; its visitors runs become dataset `visitors` and the public
 * views return the same rows before and after.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { applyMigrations, insertRows, migrations, openWarehouse, runQuery, type Warehouse } from '../../src/warehouse/index.js';
import { initialSchema } from '../../src/warehouse/migration-001-initial.js';
import { warehouseOptions } from '../support/engine.js';
import { fileTempDir } from '../support/test-env.js';

const dataDir = fileTempDir('wh-upgrade');
let wh: Warehouse | undefined;

afterAll(async () => {
  await wh?.close();
});

async function read(sql: string) {
  return (await runQuery(wh!, sql)).rows;
}

describe('upgrade in place', () => {
  it('carries a schema-1 warehouse over: runs become visitors runs, views show the same rows, new datasets start empty', async () => {
    wh = await openWarehouse({ ...warehouseOptions({ database: 'mintpipe_upgrade', dataDir }), migrations: [initialSchema] });
    const event = (runId: string, status: string, seq: number, at: string) => ({
      run_id: runId,
      project_id: 'docs',
      date_from: '2026-10-01',
      date_to: '2026-10-02',
      kind: 'nightly',
      status,
      pages: 1,
      rows: 2,
      requests: 1,
      error: '',
      started_at: '2026-10-02 02:00:00.000',
      event_at: at,
      seq,
    });
    // What version 1 wrote for one complete run and one older, superseded run of the same window.
    await insertRows(wh, 'export_run_events', [event('old', 'running', 1, '2026-10-02 01:00:00.000'), event('old', 'complete', 2, '2026-10-02 01:00:01.000')]);
    await insertRows(wh, 'export_run_events', [event('new', 'running', 1, '2026-10-02 02:00:00.000'), event('new', 'complete', 2, '2026-10-02 02:00:01.000')]);
    const rows = (runId: string, n: number) =>
      ['/a', '/b'].map((path, i) => ({ run_id: runId, project_id: 'docs', date_from: '2026-10-01', date_to: '2026-10-02', path, human: n + i, ai: 1, total: n + i, batch_offset: 0, batch_end: 250 }));
    await insertRows(wh, 'visitor_rows', rows('old', 1));
    await insertRows(wh, 'visitor_rows', rows('new', 7));
    for (const [runId, total] of [['old', 3], ['new', 9]] as const) {
      await insertRows(wh, 'visitor_window_totals', [
        { run_id: runId, project_id: 'docs', date_from: '2026-10-01', date_to: '2026-10-02', human: total, ai: 1, total, recorded_at: '2026-10-02 02:00:01.000' },
      ]);
    }
    const visitorsSql = 'SELECT project_id, date_from, date_to, path, human, ai, total FROM visitors ORDER BY path';
    const totalsSql = 'SELECT project_id, date_from, date_to, human, ai, total FROM visitor_totals';
    const before = { visitors: await read(visitorsSql), totals: await read(totalsSql) };
    expect(before.visitors.map((r) => Number(r.human))).toEqual([7, 8]);

    expect(await applyMigrations(wh)).toEqual(migrations.filter((m) => m.version > 1).map((m) => m.version));
    expect({ visitors: await read(visitorsSql), totals: await read(totalsSql) }).toEqual(before);
    expect(await read("SELECT run_id, dataset, status FROM export_runs ORDER BY run_id")).toEqual([
      { run_id: 'new', dataset: 'visitors', status: 'complete' },
      { run_id: 'old', dataset: 'visitors', status: 'complete' },
    ]);
    expect(await read("SELECT dataset, run_id FROM latest_complete_runs")).toEqual([{ dataset: 'visitors', run_id: 'new' }]);
    expect(await read('SELECT count() AS n FROM page_views')).toEqual([{ n: 0 }]);
  });
});
