/**
 * The steps of a window's export, each alone (src/export/export-window.ts runs them in order):
 * claim or resume the run, page, complete. Real Redis and warehouse, the emulator as the upstream.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/cli/runtime.js';
import { getDataset } from '../../src/datasets/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { completeWindow } from '../../src/export/complete-window.js';
import { BudgetWaitError, UnstableWindowError } from '../../src/export/errors.js';
import type { ExportTask } from '../../src/export/export-types.js';
import { PageFetcher, type Settled } from '../../src/export/page-fetcher.js';
import { END_CURSOR, Pager } from '../../src/export/pager.js';
import { claimRun, freshCheckpoint } from '../../src/export/run-claim.js';
import { createLogger } from '../../src/logger.js';
import { RequestBudget } from '../../src/queue/request-budget.js';
import { insertRowBatch, latestCompleteRun, latestRuns, type Warehouse } from '../../src/warehouse/index.js';
import { UNPACED_ENV } from '../support/test-env.js';
import { openTestStack, type TestStack } from '../support/test-stack.js';
import { rejection, until } from '../support/wait.js';

const PROJECT = 'proj_steps';
const logger = createLogger({ level: 'silent', pretty: false });
let stack: TestStack | undefined;
let emulator: RunningEmulator;
let runtime: Runtime;
let warehouse: Warehouse;
let day = 0;

/** A task of its own window (one day each), so tests do not see each other's runs. */
function task(dataset: ExportTask['dataset']): ExportTask {
  day += 1;
  const from = new Date(Date.UTC(2026, 8, day));
  const to = new Date(Date.UTC(2026, 8, day + 1));
  const iso = (d: Date) => d.toISOString().slice(0, 10);
  return { dataset, projectId: PROJECT, dateFrom: iso(from), dateTo: iso(to), kind: 'manual', runId: `steps-${randomBytes(4).toString('hex')}` };
}

function budget(rate: { limit: number; windowMs: number } | null): RequestBudget {
  return new RequestBudget(runtime.redis, { key: `steps:${randomBytes(4).toString('hex')}`, rate });
}

function fetcher(t: ExportTask, spend: RequestBudget, prefetchPages = 16): PageFetcher {
  const dataset = getDataset(t.dataset);
  const pager = new Pager(dataset, t);
  return new PageFetcher({ client: runtime.client(), budget: spend, dataset, pager, projectId: PROJECT, log: logger, maxPages: 100, prefetchPages }, { position: 0, requests: 0 });
}

const visitorRows = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ path: `/p${from + i}`, human: 1, ai: 0, total: 1 }));

beforeAll(async () => {
  const opened = await openTestStack({ emulator: {}, env: UNPACED_ENV });
  ({ emulator, runtime, warehouse } = opened);
  stack = opened;
});

afterAll(() => stack?.close());

describe('claim or resume the run', () => {
  it('starts a fresh run at the first page and records it as running', async () => {
    const t = task('visitors');
    const run = await claimRun({ warehouse, logger }, t, getDataset('visitors'), freshCheckpoint(t.runId, 0));
    expect(run.position).toEqual({ position: 0, cursor: null });
    expect(run.ended).toBe(false);
    const [event] = await latestRuns(warehouse, { projectId: PROJECT, limit: 100 }).then((runs) => runs.filter((r) => r.runId === t.runId));
    expect(event?.status).toBe('running');
  });

  it('resumes after the last stored batch, with its cursor, even when the checkpoint lags behind it', async () => {
    const t = task('feedback');
    const dataset = getDataset('feedback');
    const rows = Array.from({ length: 3 }, (_, i) => ({ id: `f${i}` }));
    await insertRowBatch(warehouse, { ...t, table: dataset.table, batchOffset: 0, batchEnd: 3, batchCursor: 'cursor-after-3', rows });
    const run = await claimRun({ warehouse, logger }, t, dataset, freshCheckpoint(t.runId, 0));
    expect(run.position).toEqual({ position: 3, cursor: 'cursor-after-3' });
    expect(run.checkpoint).toMatchObject({ offset: 3, rows: 3 });
    expect(run.stored.batches).toBe(1);
  });

  it('finds nothing left to fetch after a batch stored as the last one', async () => {
    const t = task('visitors');
    await insertRowBatch(warehouse, { ...t, table: getDataset('visitors').table, batchOffset: 0, batchEnd: 2, batchCursor: END_CURSOR, rows: visitorRows(2) });
    const run = await claimRun({ warehouse, logger }, t, getDataset('visitors'), freshCheckpoint(t.runId, 0));
    expect(run.ended).toBe(true);
    expect(run.position).toEqual({ position: 2, cursor: null });
  });
});

describe('page', () => {
  it('fetches offset pages ahead in slow start (1, 1, 2 …) when the budget is off, and drops those a short page made wrong', async () => {
    const t = task('visitors');
    const before = emulator.counters.routes.visitors.requests;
    const pages = fetcher(t, budget(null));
    const answers: Array<Promise<Settled> | undefined> = [];
    const inFlight: number[] = [];
    for (const position of [0, 250, 500]) {
      answers.push(pages.next({ position, cursor: null }));
      inFlight.push(pages.inflight);
      pages.consumed();
    }
    expect(inFlight).toEqual([0, 0, 1]);
    // A short page at 500 moves the next offset to 600: the page fetched ahead at 750 is wrong.
    expect(pages.shortPage(600, 100)).toBe(1);
    expect(pages.inflight).toBe(0);
    await Promise.all(answers);
    // The dropped page was still sent (its answer is ignored): four requests in all.
    await until('the dropped page to reach the upstream', async () => (emulator.counters.routes.visitors.requests - before === 4 ? true : undefined), 10_000);
    expect(pages.requests).toBe(4);
  });

  it('holds one page in flight under a budget and counts exactly the requests the upstream received', async () => {
    const t = task('visitors');
    const before = emulator.counters.routes.visitors.requests;
    const pages = fetcher(t, budget({ limit: 1000, windowMs: 3_600_000 }));
    const first = await pages.next({ position: 0, cursor: null });
    expect(pages.inflight).toBe(0);
    expect(first?.ok).toBe(true);
    pages.consumed();
    await pages.next({ position: 250, cursor: null });
    expect(pages.requests).toBe(2);
    expect(emulator.counters.routes.visitors.requests - before).toBe(2);
  });

  it('answers a spent budget with how long to wait, spending no request', async () => {
    const t = task('visitors');
    const spend = budget({ limit: 1, windowMs: 3_600_000 });
    expect((await spend.tryTake()).granted).toBe(true);
    const before = emulator.counters.routes.visitors.requests;
    const pages = fetcher(t, spend);
    const settled = await pages.next({ position: 0, cursor: null });
    expect(settled?.ok).toBe(false);
    expect(settled?.ok === false && settled.error).toBeInstanceOf(BudgetWaitError);
    expect(pages.requests).toBe(0);
    expect(emulator.counters.routes.visitors.requests).toBe(before);
  });
});

describe('complete', () => {
  const totals = { human: 2, ai: 0, total: 2 };

  it('marks the run complete, so readers see it, and reports its counts', async () => {
    const t = task('visitors');
    const dataset = getDataset('visitors');
    await claimRun({ warehouse, logger }, t, dataset, freshCheckpoint(t.runId, 0));
    await insertRowBatch(warehouse, { ...t, table: dataset.table, batchOffset: 0, batchEnd: 2, batchCursor: END_CURSOR, rows: visitorRows(2) });
    const checkpoint = { ...freshCheckpoint(t.runId, 0), rows: 2, pages: 1 };
    const outcome = await completeWindow(warehouse, t, dataset, { checkpoint, requests: 1, totals, keysChecked: true }, logger);
    expect(outcome).toEqual({ kind: 'complete', runId: t.runId, rows: 2, pages: 1, requests: 1 });
    expect((await latestCompleteRun(warehouse, 'visitors', PROJECT, t.dateFrom, t.dateTo))?.runId).toBe(t.runId);
  });

  it('refuses a run whose key was stored twice when its keys were not all checked in memory, and leaves it unread', async () => {
    const t = task('visitors');
    const dataset = getDataset('visitors');
    await insertRowBatch(warehouse, { ...t, table: dataset.table, batchOffset: 0, batchEnd: 1, batchCursor: '', rows: visitorRows(1) });
    await insertRowBatch(warehouse, { ...t, table: dataset.table, batchOffset: 1, batchEnd: 2, batchCursor: END_CURSOR, rows: visitorRows(1) });
    const checkpoint = { ...freshCheckpoint(t.runId, 0), rows: 2, pages: 2 };
    const error = await rejection(completeWindow(warehouse, t, dataset, { checkpoint, requests: 2, totals, keysChecked: false }, logger));
    expect(error).toBeInstanceOf(UnstableWindowError);
    expect((error as Error).message).toBe('path "/p0" seen twice in one run');
    expect(await latestCompleteRun(warehouse, 'visitors', PROJECT, t.dateFrom, t.dateTo)).toBeNull();
  });

  it('refuses a run of a dataset with window totals when the totals were lost', async () => {
    const t = task('visitors');
    const checkpoint = { ...freshCheckpoint(t.runId, 0), rows: 0, pages: 1 };
    const error = await rejection(completeWindow(warehouse, t, getDataset('visitors'), { checkpoint, requests: 1, totals: undefined, keysChecked: true }, logger));
    expect((error as Error).message).toBe('window totals were lost with the checkpoint');
  });
});
