/**
 * src/export/batch-loader.ts on the real warehouse: a batch is one insert with its findings, the
 * checkpoint moves past it only once both are stored, and at most one insert is in flight.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDataset } from '../../src/datasets/index.js';
import { BatchLoader, type LoadedBatch } from '../../src/export/batch-loader.js';
import { runProgress, selectRows, tableName, type RunWindow, type Warehouse } from '../../src/warehouse/index.js';
import { openTestStack, type TestStack } from '../support/test-stack.js';
import { rejection, until } from '../support/wait.js';

const visitors = getDataset('visitors');
let stack: TestStack | undefined;
let warehouse: Warehouse;

const run = (): RunWindow => ({ dataset: 'visitors', runId: `loader-${randomBytes(4).toString('hex')}`, projectId: 'proj_loader', dateFrom: '2026-10-01', dateTo: '2026-10-02' });
const rows = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ path: `/p${from + i}`, human: 1, ai: 0, total: 1 }));

async function findingsOf(runId: string): Promise<string[]> {
  const found = await selectRows<{ kind: string }>(warehouse, `SELECT kind FROM ${tableName(warehouse, 'data_quality_findings')} WHERE run_id = {runId:String} ORDER BY kind`, { runId });
  return found.map((f) => f.kind);
}

async function batchesOf(runId: string): Promise<Array<{ start: number; end: number }>> {
  const found = await selectRows<{ start: number | string; end: number | string }>(
    warehouse,
    `SELECT DISTINCT batch_offset AS start, batch_end AS end FROM ${tableName(warehouse, visitors.table)} WHERE run_id = {runId:String} ORDER BY start`,
    { runId },
  );
  return found.map((b) => ({ start: Number(b.start), end: Number(b.end) }));
}

beforeAll(async () => {
  stack = await openTestStack();
  warehouse = stack.warehouse;
});

afterAll(() => stack?.close());

describe('batch loader', () => {
  it('stores a batch with its findings and reports it loaded only once both are stored', async () => {
    const window = run();
    const seen: Array<{ batch: LoadedBatch; stored: number; findings: string[] }> = [];
    const loader = new BatchLoader(warehouse, visitors, window, 0, async (batch) => {
      seen.push({ batch, stored: (await runProgress(warehouse, visitors.table, window.runId)).rows, findings: await findingsOf(window.runId) });
    });
    loader.add(rows(2), [{ kind: 'short_page', detail: 'page at offset 0 …' }]);
    loader.add(rows(1, 2), []);
    expect(loader.pendingRows).toBe(3);
    await loader.flush(3, '', true);
    expect(loader.pendingRows).toBe(0);
    expect(seen).toEqual([{ batch: { end: 3, cursor: '', rows: 3 }, stored: 3, findings: ['short_page'] }]);
  });

  it('stores findings that come with no rows and still moves past the batch', async () => {
    const window = run();
    const loaded: LoadedBatch[] = [];
    const loader = new BatchLoader(warehouse, visitors, window, 0, async (batch) => void loaded.push(batch));
    loader.add([], [{ kind: 'cursor_restarted', detail: 'run r started over' }]);
    await loader.flush(0, '', true);
    expect(loaded).toEqual([{ end: 0, cursor: '', rows: 0 }]);
    expect(await findingsOf(window.runId)).toEqual(['cursor_restarted']);
  });

  it('starts a resumed run’s next batch at the position it resumed from, batches following each other', async () => {
    const window = run();
    const loader = new BatchLoader(warehouse, visitors, window, 500, async () => {});
    loader.add(rows(100, 500), []);
    await loader.flush(600, '', false);
    loader.add(rows(50, 600), []);
    await loader.flush(650, 'next', true);
    expect(await batchesOf(window.runId)).toEqual([
      { start: 500, end: 600 },
      { start: 600, end: 650 },
    ]);
  });

  it('never reports a batch whose insert failed, and the flush that waits for it fails', async () => {
    const window = run();
    const loaded: LoadedBatch[] = [];
    const loader = new BatchLoader(warehouse, { ...visitors, table: 'no_such_table' }, window, 0, async (batch) => void loaded.push(batch));
    loader.add(rows(1), []);
    await loader.flush(1, '', false);
    // Without waiting the error surfaces at the next flush or settle, never lost.
    expect(await rejection(loader.settle())).toBeInstanceOf(Error);
    loader.add(rows(1, 1), []);
    await loader.flush(2, '', false);
    expect(await rejection(loader.flush(2, '', true))).toBeInstanceOf(Error);
    expect(loaded).toEqual([]);
  });

  it('keeps one insert in flight: the next batch is not stored before the previous one’s checkpoint is saved', async () => {
    const window = run();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const storedWhileFirstCheckpointed: number[] = [];
    const loader = new BatchLoader(warehouse, visitors, window, 0, async (batch) => {
      if (batch.end !== 1) return;
      await released;
      // The second flush was asked for: give its insert a chance to run (it must not).
      await until('a second batch', async () => ((await batchesOf(window.runId)).length > 1 ? true : undefined), 1_000).catch(() => {});
      storedWhileFirstCheckpointed.push((await batchesOf(window.runId)).length);
    });
    loader.add(rows(1), []);
    await loader.flush(1, '', false);
    loader.add(rows(1, 1), []);
    const second = loader.flush(2, '', false);
    release();
    await second;
    await loader.settle();
    expect(storedWhileFirstCheckpointed).toEqual([1]);
    expect(await batchesOf(window.runId)).toEqual([
      { start: 0, end: 1 },
      { start: 1, end: 2 },
    ]);
  });
});
