import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  insertPromptEvent,
  insertRows,
  insertRowBatch,
  openWarehouse,
  promptOutcomes,
  runProgress,
  selectRows,
  type RowBatch,
  type Warehouse,
} from '../../src/warehouse/index.js';
import { fileTempDir } from '../support/test-env.js';

const dataDir = fileTempDir('wh-dedup');
let wh: Warehouse;

beforeAll(async () => {
  wh = await openWarehouse({ database: 'mintpipe_dedup_test', dataDir });
});

afterAll(async () => {
  await wh?.close();
});

function batch(overrides: Partial<RowBatch> = {}): RowBatch {
  return {
    dataset: 'visitors',
    table: 'visitor_rows',
    batchCursor: '',
    runId: `run-${randomUUID()}`,
    projectId: `p-${randomUUID()}`,
    dateFrom: '2024-04-01',
    dateTo: '2024-04-02',
    batchOffset: 0,
    batchEnd: 250,
    rows: [
      { path: '/a', human: 5, ai: 1, total: 5 },
      { path: '/b', human: 2, ai: 2, total: 3 },
    ],
    ...overrides,
  };
}

async function storedRows(projectId: string): Promise<number> {
  const [row] = await selectRows<{ n: number | string }>(
    wh,
    `SELECT count() AS n FROM ${wh.database}.visitor_rows WHERE project_id = {p:String}`,
    { p: projectId },
  );
  return Number(row?.n);
}

async function sessionSetting(name: string): Promise<{ value: string; changed: number }> {
  const [row] = await selectRows<{ value: string; changed: number | string }>(
    wh,
    'SELECT value, changed FROM system.settings WHERE name = {name:String}',
    { name },
  );
  return { value: row?.value ?? '', changed: Number(row?.changed) };
}

describe('insert deduplication', () => {
  it('stores a replayed batch once', async () => {
    const replayed = batch();
    await insertRowBatch(wh, replayed);
    await insertRowBatch(wh, replayed);
    expect(await storedRows(replayed.projectId)).toBe(2);
    expect(await runProgress(wh, 'visitor_rows', replayed.runId)).toEqual({ nextOffset: 250, cursor: '', rows: 2, batches: 1 });
  });

  it('stores identical rows of another run of the same window', async () => {
    const first = batch();
    const second = { ...first, runId: `run-${randomUUID()}` };
    await insertRowBatch(wh, first);
    await insertRowBatch(wh, second);
    expect(await storedRows(first.projectId)).toBe(4);
  });

  it('stores a later batch of the same run with the same rows at other offsets', async () => {
    const first = batch();
    await insertRowBatch(wh, first);
    await insertRowBatch(wh, { ...first, batchOffset: 250, batchEnd: 500 });
    expect(await storedRows(first.projectId)).toBe(4);
  });

  it('leaves no token or async setting behind on the engine session', async () => {
    await insertRowBatch(wh, batch());
    expect(await sessionSetting('insert_deduplication_token')).toEqual({ value: '', changed: 0 });
    expect((await sessionSetting('async_insert')).changed).toBe(0);
  });

  it('does not drop untokened inserts that follow tokened batches', async () => {
    const batchId = `b-${randomUUID()}`;
    await insertRowBatch(wh, batch());
    const event = { batchId, projectId: 'p', jobId: 'j', status: 'queued' as const, version: 1 };
    await insertPromptEvent(wh, { ...event, promptId: 'p1' });
    await insertRowBatch(wh, batch());
    await insertPromptEvent(wh, { ...event, promptId: 'p2' });
    await insertPromptEvent(wh, { ...event, promptId: 'p3' });
    expect((await promptOutcomes(wh, batchId)).map((outcome) => outcome.promptId)).toEqual(['p1', 'p2', 'p3']);
  });

  it('lands an untokened insert even after another caller leaked a token into the engine session', async () => {
    // This is the pitfall: a per-call setting becomes a session SET on the embedded engine.
    await wh.client.command({ query: 'SELECT 1', clickhouse_settings: { insert_deduplication_token: 'leaked' } });
    try {
      const projectId = `p-${randomUUID()}`;
      const row = (path: string) => ({ run_id: 'r', project_id: projectId, date_from: '2024-04-01', date_to: '2024-04-02', path, human: 1, ai: 0, total: 1, batch_offset: 0, batch_end: 1 });
      await insertRows(wh, 'visitor_rows', [row('/x')]);
      await insertRows(wh, 'visitor_rows', [row('/y')]);
      expect(await storedRows(projectId)).toBe(2);
    } finally {
      await wh.client.command({ query: 'SELECT 1', clickhouse_settings: { insert_deduplication_token: '' } });
    }
  });
});
