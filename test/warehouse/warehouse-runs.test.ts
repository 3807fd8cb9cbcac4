import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  completeRun as completeAnyRun,
  findDuplicateKey,
  insertRowBatch,
  latestCompleteRun as latestCompleteAnyRun,
  latestRuns,
  openWarehouse,
  pruneSuperseded as pruneAnySuperseded,
  recordRunEvent,
  runProgress as anyRunProgress,
  RunRowsMismatchError,
  selectRows,
  type CompletedRun,
  type RowBatch,
  type Warehouse,
} from '../../src/warehouse/index.js';
import { insertBatchFindings } from '../../src/warehouse/dataset-rows.js';
import { fileTempDir } from '../support/test-env.js';

// The stores are generic over datasets; these tests exercise them with visitors.
type VisitorRow = { path: string; human: number; ai: number; total: number };
const insertVisitorBatch = (w: Warehouse, batch: Omit<RowBatch, 'table' | 'batchCursor' | 'dataset'>) =>
  insertRowBatch(w, { ...batch, dataset: 'visitors', table: 'visitor_rows', batchCursor: '' });
const completeRun = (w: Warehouse, run: Omit<CompletedRun, 'table' | 'totals'> & { totals: Record<string, unknown> }) =>
  completeAnyRun(w, { ...run, table: 'visitor_rows', totals: { table: 'visitor_window_totals', columns: run.totals } });
const latestCompleteRun = (w: Warehouse, projectId: string, from: string, to: string) => latestCompleteAnyRun(w, 'visitors', projectId, from, to);
const findDuplicatePath = (w: Warehouse, runId: string) => findDuplicateKey(w, 'visitor_rows', 'path', runId);
const runProgress = async (w: Warehouse, runId: string) => {
  const { cursor: _cursor, ...progress } = await anyRunProgress(w, 'visitor_rows', runId);
  return progress;
};
const pruneSuperseded = (w: Warehouse) => pruneAnySuperseded(w, ['visitor_rows', 'visitor_window_totals']);

const dataDir = fileTempDir('wh-runs');
let wh: Warehouse;

beforeAll(async () => {
  wh = await openWarehouse({ database: 'mintpipe_runs_test', dataDir });
});

afterAll(async () => {
  await wh?.close();
});

/** A fresh window of a random project, so tests never see each other's rows. */
function newWindow() {
  return { dataset: 'visitors', projectId: `p-${randomUUID()}`, dateFrom: '2024-03-01', dateTo: '2024-03-02', kind: 'nightly' as const };
}

type Window = ReturnType<typeof newWindow>;

function rows(...specs: Array<[string, number]>): VisitorRow[] {
  return specs.map(([path, human]) => ({ path, human, ai: 1, total: human + 1 }));
}

async function startRun(window: Window): Promise<string> {
  const runId = `run-${randomUUID()}`;
  await recordRunEvent(wh, { ...window, runId, status: 'running', startedAt: new Date() });
  return runId;
}

/** A run that loads `batches` (one per 250-row page) and completes. */
async function exportRun(window: Window, batches: VisitorRow[][], totals = { human: 10, ai: 5, total: 12 }): Promise<string> {
  const runId = await startRun(window);
  let offset = 0;
  for (const batch of batches) {
    await insertVisitorBatch(wh, { ...window, runId, batchOffset: offset, batchEnd: offset + 250, rows: batch });
    offset += 250;
  }
  const loaded = batches.reduce((n, batch) => n + batch.length, 0);
  await completeRun(wh, { ...window, runId, startedAt: new Date(), totals, pages: batches.length, rows: loaded, requests: batches.length });
  return runId;
}

async function visible(window: Window): Promise<Array<[string, number]>> {
  const found = await selectRows<{ path: string; human: number | string }>(
    wh,
    `SELECT path, human FROM ${wh.database}.visitors
     WHERE project_id = {p:String} AND date_from = {f:Date} AND date_to = {t:Date} ORDER BY path`,
    { p: window.projectId, f: window.dateFrom, t: window.dateTo },
  );
  return found.map((row) => [row.path, Number(row.human)]);
}

async function visibleTotals(window: Window): Promise<Array<{ human: number; ai: number; total: number }>> {
  const found = await selectRows<{ human: number | string; ai: number | string; total: number | string }>(
    wh,
    `SELECT human, ai, total FROM ${wh.database}.visitor_totals WHERE project_id = {p:String}`,
    { p: window.projectId },
  );
  return found.map((row) => ({ human: Number(row.human), ai: Number(row.ai), total: Number(row.total) }));
}

async function storedRunIds(table: string, window: Window): Promise<string[]> {
  const found = await selectRows<{ run_id: string }>(
    wh,
    `SELECT DISTINCT run_id FROM ${wh.database}.${table} WHERE project_id = {p:String} ORDER BY run_id`,
    { p: window.projectId },
  );
  return found.map((row) => row.run_id);
}

describe('export runs', () => {
  it('keeps a run invisible while it loads, and shows it once its complete event is in', async () => {
    const window = newWindow();
    const runId = await startRun(window);
    await insertVisitorBatch(wh, { ...window, runId, batchOffset: 0, batchEnd: 250, rows: rows(['/a', 3], ['/b', 4]) });
    expect(await visible(window)).toEqual([]);
    expect(await visibleTotals(window)).toEqual([]);
    expect(await latestCompleteRun(wh, window.projectId, window.dateFrom, window.dateTo)).toBeNull();

    await completeRun(wh, { ...window, runId, startedAt: new Date(), totals: { human: 7, ai: 2, total: 8 }, pages: 1, rows: 2, requests: 1 });
    expect(await visible(window)).toEqual([
      ['/a', 3],
      ['/b', 4],
    ]);
    expect(await visibleTotals(window)).toEqual([{ human: 7, ai: 2, total: 8 }]);
    expect((await latestCompleteRun(wh, window.projectId, window.dateFrom, window.dateTo))?.runId).toBe(runId);
  });

  it('shows a running run without a finish time, and a finished one with its time and duration', async () => {
    const window = newWindow();
    const startedAt = new Date(Date.now() - 5_000);
    const runId = `run-${randomUUID()}`;
    await recordRunEvent(wh, { ...window, runId, status: 'running', startedAt: startedAt.toISOString() });
    let [run] = await latestRuns(wh, { projectId: window.projectId, limit: 10 });
    expect(run).toMatchObject({ runId, status: 'running', finishedAt: null, durationMs: null });
    expect(run?.startedAt.getTime()).toBe(startedAt.getTime());

    const failedAt = new Date(startedAt.getTime() + 1_234);
    await recordRunEvent(wh, { ...window, runId, status: 'failed', error: 'HTTP 500', pages: 3, requests: 4, startedAt, eventAt: failedAt });
    [run] = await latestRuns(wh, { projectId: window.projectId, limit: 10 });
    expect(run).toMatchObject({ runId, status: 'failed', error: 'HTTP 500', pages: 3, requests: 4, durationMs: 1_234 });
    expect(run?.finishedAt?.getTime()).toBe(failedAt.getTime());
  });

  it('lists the newest runs first, limited, for one project or all', async () => {
    const window = newWindow();
    const first = await startRun(window);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await startRun(window);
    const runs = await latestRuns(wh, { projectId: window.projectId, limit: 1 });
    expect(runs.map((run) => run.runId)).toEqual([second]);
    expect((await latestRuns(wh, { projectId: window.projectId, limit: 5 })).map((run) => run.runId)).toEqual([second, first]);
    expect((await latestRuns(wh, { limit: 1000 })).map((run) => run.runId)).toContain(first);
  });

  it('switches readers from the old export to the new one at once, never showing a mixture', async () => {
    const window = newWindow();
    const oldRows = rows(['/a', 1], ['/b', 2]);
    await exportRun(window, [oldRows], { human: 3, ai: 2, total: 4 });
    const before: Array<[string, number]> = [
      ['/a', 1],
      ['/b', 2],
    ];
    const after: Array<[string, number]> = [
      ['/b', 20],
      ['/c', 30],
      ['/d', 40],
    ];

    // A reader polls the view while the re-export loads and completes.
    let writing = true;
    const seen: string[] = [];
    const reader = (async () => {
      while (writing) seen.push(JSON.stringify(await visible(window)));
    })();
    const runId = await startRun(window);
    await insertVisitorBatch(wh, { ...window, runId, batchOffset: 0, batchEnd: 250, rows: rows(['/b', 20], ['/c', 30]) });
    expect(await visible(window)).toEqual(before);
    await insertVisitorBatch(wh, { ...window, runId, batchOffset: 250, batchEnd: 500, rows: rows(['/d', 40]) });
    expect(await visible(window)).toEqual(before);
    await completeRun(wh, { ...window, runId, startedAt: new Date(), totals: { human: 90, ai: 3, total: 91 }, pages: 2, rows: 3, requests: 2 });
    writing = false;
    await reader;

    expect(await visible(window)).toEqual(after);
    expect(await visibleTotals(window)).toEqual([{ human: 90, ai: 3, total: 91 }]);
    const allowed = new Set([JSON.stringify(before), JSON.stringify(after)]);
    expect(seen).toContain(JSON.stringify(before));
    expect(seen.filter((snapshot) => !allowed.has(snapshot))).toEqual([]);
  });

  it('shows the run that completed last, even when it started first', async () => {
    const window = newWindow();
    const early = await startRun(window);
    const late = await exportRun(window, [rows(['/late', 1])]);
    await insertVisitorBatch(wh, { ...window, runId: early, batchOffset: 0, batchEnd: 250, rows: rows(['/early', 2]) });
    await completeRun(wh, { ...window, runId: early, startedAt: new Date(), totals: { human: 2, ai: 1, total: 3 }, pages: 1, rows: 1, requests: 1 });
    expect(await visible(window)).toEqual([['/early', 2]]);
    expect((await latestCompleteRun(wh, window.projectId, window.dateFrom, window.dateTo))?.runId).toBe(early);
    expect(late).not.toBe(early);
  });

  it('shows in data_quality the findings of the visible run only: not those of a run still loading, nor of a superseded one', async () => {
    const window = newWindow();
    const findings = async () =>
      (await selectRows<{ detail: string }>(wh, `SELECT detail FROM ${wh.database}.data_quality WHERE project_id = {p:String} ORDER BY detail`, { p: window.projectId })).map((r) => r.detail);
    const runWithFinding = async (detail: string) => {
      const runId = await startRun(window);
      await insertVisitorBatch(wh, { ...window, runId, batchOffset: 0, batchEnd: 250, rows: rows(['/a', 1]) });
      await insertBatchFindings(wh, { ...window, runId, batchOffset: 0, batchEnd: 250 }, [{ kind: 'fractional_count', detail }]);
      return runId;
    };
    const complete = (runId: string) => completeRun(wh, { ...window, runId, startedAt: new Date(), totals: { human: 1, ai: 1, total: 2 }, pages: 1, rows: 1, requests: 1 });

    await complete(await runWithFinding('found by the first export'));
    expect(await findings()).toEqual(['found by the first export']);
    const reexport = await runWithFinding('found by the re-export');
    expect(await findings()).toEqual(['found by the first export']);
    await complete(reexport);
    expect(await findings()).toEqual(['found by the re-export']);
  });

  it('keeps windows apart: a re-export of one window leaves the others as they were', async () => {
    const day1 = newWindow();
    const day2 = { ...day1, dateFrom: '2024-03-02', dateTo: '2024-03-03' };
    await exportRun(day1, [rows(['/one', 1])]);
    await exportRun(day2, [rows(['/two', 2])]);
    await exportRun(day2, [rows(['/two', 22])]);
    expect(await visible(day1)).toEqual([['/one', 1]]);
    expect(await visible(day2)).toEqual([['/two', 22]]);
  });

  it('refuses to complete a run whose stored rows do not match what it loaded, leaving it invisible', async () => {
    const window = newWindow();
    const runId = await startRun(window);
    await insertVisitorBatch(wh, { ...window, runId, batchOffset: 0, batchEnd: 250, rows: rows(['/a', 1]) });
    const completing = completeRun(wh, { ...window, runId, startedAt: new Date(), totals: { human: 1, ai: 1, total: 1 }, pages: 2, rows: 2, requests: 2 });
    await expect(completing).rejects.toBeInstanceOf(RunRowsMismatchError);
    await expect(completing).rejects.toThrow(`run ${runId}: 1 rows stored but 2 loaded; not marking it complete`);
    expect(await visible(window)).toEqual([]);
    expect(await visibleTotals(window)).toEqual([]);
  });
});

describe('run progress and duplicates', () => {
  it('reports nothing stored for a new run', async () => {
    expect(await runProgress(wh, `run-${randomUUID()}`)).toEqual({ nextOffset: 0, rows: 0, batches: 0 });
  });

  it('resumes after the last stored batch, counting rows and batches, unchanged by a replayed batch', async () => {
    const window = newWindow();
    const runId = await startRun(window);
    await insertVisitorBatch(wh, { ...window, runId, batchOffset: 0, batchEnd: 500, rows: rows(['/a', 1], ['/b', 1], ['/c', 1]) });
    await insertVisitorBatch(wh, { ...window, runId, batchOffset: 500, batchEnd: 750, rows: rows(['/d', 1], ['/e', 1]) });
    expect(await runProgress(wh, runId)).toEqual({ nextOffset: 750, rows: 5, batches: 2 });
    await insertVisitorBatch(wh, { ...window, runId, batchOffset: 500, batchEnd: 750, rows: rows(['/d', 1], ['/e', 1]) });
    expect(await runProgress(wh, runId)).toEqual({ nextOffset: 750, rows: 5, batches: 2 });
  });

  it('finds a path stored twice in one run, and none in a clean run', async () => {
    const window = newWindow();
    const clean = await startRun(window);
    await insertVisitorBatch(wh, { ...window, runId: clean, batchOffset: 0, batchEnd: 250, rows: rows(['/a', 1], ['/b', 1]) });
    await insertVisitorBatch(wh, { ...window, runId: clean, batchOffset: 250, batchEnd: 500, rows: rows(['/c', 1]) });
    expect(await findDuplicatePath(wh, clean)).toBeNull();

    const moved = await startRun(window);
    await insertVisitorBatch(wh, { ...window, runId: moved, batchOffset: 0, batchEnd: 250, rows: rows(['/a', 1], ['/b', 1]) });
    await insertVisitorBatch(wh, { ...window, runId: moved, batchOffset: 250, batchEnd: 500, rows: rows(['/b', 1], ['/c', 1]) });
    expect(await findDuplicatePath(wh, moved)).toBe('/b');
  });
});

describe('pruning', () => {
  it('deletes the rows of superseded, failed and unstable runs, keeping the visible run and running ones', async () => {
    const window = newWindow();
    const superseded = await exportRun(window, [rows(['/old', 1])]);
    const failed = await startRun(window);
    await insertVisitorBatch(wh, { ...window, runId: failed, batchOffset: 0, batchEnd: 250, rows: rows(['/failed', 1]) });
    await recordRunEvent(wh, { ...window, runId: failed, status: 'failed', error: 'boom', startedAt: new Date() });
    const unstable = await startRun(window);
    await insertVisitorBatch(wh, { ...window, runId: unstable, batchOffset: 0, batchEnd: 250, rows: rows(['/moved', 1]) });
    await recordRunEvent(wh, { ...window, runId: unstable, status: 'unstable', error: 'moved', startedAt: new Date() });
    const latest = await exportRun(window, [rows(['/new', 5])]);
    const running = await startRun(window);
    await insertVisitorBatch(wh, { ...window, runId: running, batchOffset: 0, batchEnd: 250, rows: rows(['/loading', 1]) });

    const { runsPruned } = await pruneSuperseded(wh);
    expect(runsPruned).toBeGreaterThanOrEqual(3);
    expect(await storedRunIds('visitor_rows', window)).toEqual([latest, running].sort());
    expect(await storedRunIds('visitor_window_totals', window)).toEqual([latest]);
    expect(await visible(window)).toEqual([['/new', 5]]);
    expect(await runProgress(wh, running)).toEqual({ nextOffset: 250, rows: 1, batches: 1 });
    expect((await latestRuns(wh, { projectId: window.projectId, limit: 10 })).map((run) => run.runId).sort()).toEqual(
      [superseded, failed, unstable, latest, running].sort(),
    );
    expect(await pruneSuperseded(wh)).toEqual({ runsPruned: 0 });
  });

  it('prunes runs whose ids contain quotes and backslashes', async () => {
    const window = newWindow();
    const odd = `run-it's\\odd-${randomUUID()}`;
    await recordRunEvent(wh, { ...window, runId: odd, status: 'running', startedAt: new Date() });
    await insertVisitorBatch(wh, { ...window, runId: odd, batchOffset: 0, batchEnd: 250, rows: rows(['/odd', 1]) });
    await insertVisitorBatch(wh, { ...window, runId: odd, batchOffset: 0, batchEnd: 250, rows: rows(['/odd', 1]) });
    expect(await runProgress(wh, odd)).toEqual({ nextOffset: 250, rows: 1, batches: 1 });
    await recordRunEvent(wh, { ...window, runId: odd, status: 'failed', startedAt: new Date() });
    const latest = await exportRun(window, [rows(['/ok', 1])]);
    await pruneSuperseded(wh);
    expect(await storedRunIds('visitor_rows', window)).toEqual([latest]);
  });

  it('stores a re-export of a pruned run\'s identical rows under the new run', async () => {
    const window = newWindow();
    const same = rows(['/same', 7]);
    await exportRun(window, [same]);
    const second = await exportRun(window, [same]);
    await pruneSuperseded(wh);
    const third = await exportRun(window, [same]);
    expect(await storedRunIds('visitor_rows', window)).toEqual([second, third].sort());
    expect(await visible(window)).toEqual([['/same', 7]]);
  });
});
