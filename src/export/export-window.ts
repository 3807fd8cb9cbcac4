/**
 * Exports one window: pages through the visitors endpoint with limit 250, validates every page,
 * loads rows in batches of thousands, and marks the run complete last (the switch that makes the
 * window visible). No queue here: the job in jobs/ maps the outcome to BullMQ.
 *
 * - Every request takes a slot from the shared budget first; when none is left the pages already
 *   fetched are loaded, progress is checkpointed, and the caller is told how long to wait.
 * - With the budget off, up to `prefetchPages` pages are in flight at once; they are consumed in
 *   offset order, so offsets and order stay exact.
 * - The warehouse is the source of truth for what was loaded: a resumed run continues after its
 *   last stored batch, so only pages fetched but not yet loaded are fetched again.
 */
import type { MintlifyClient, SiteTotals, VisitorRow, VisitorsPage } from '../api/index.js';
import type { Logger } from '../logger.js';
import type { RequestBudget } from '../queue/request-budget.js';
import {
  completeRun,
  findDuplicatePath,
  insertVisitorBatch,
  pruneSuperseded,
  recordRunEvent,
  runProgress,
  type Warehouse,
} from '../warehouse/index.js';
import { BudgetWaitError, PaginationError, UnstableWindowError } from './errors.js';
import { PageChecks } from './page-checks.js';
import type { ExportWindow, WindowKind } from './windows.js';

/** Rows per page: always the API's maximum, so every request of the budget counts fully. */
export const PAGE_LIMIT = 250;

export interface ExportSettings {
  /** Pages in flight at once when the budget is off. @default 16 */
  prefetchPages: number;
  /** Rows per insert. @default 5000 */
  batchRows: number;
  /** A window with more pages fails. @default 20000 */
  maxPages: number;
  /** Fresh runs after the data moved mid-run. @default 2 */
  unstableRetries: number;
  /** Load what was fetched at least this often while pages trickle in. @default 5000 */
  flushIntervalMs?: number;
}

/** Counters the metrics layer may observe. */
export interface ExportObserver {
  pageFetched?(projectId: string): void;
  rowsLoaded?(projectId: string, rows: number): void;
}

export interface ExportDeps {
  client: MintlifyClient;
  warehouse: Warehouse;
  budget: RequestBudget;
  logger: Logger;
  settings: ExportSettings;
  observer?: ExportObserver;
}

/** Progress saved in the job between steps; everything needed to resume. */
export interface ExportCheckpoint {
  runId: string;
  /** Fresh runs started because the data moved. */
  restarts: number;
  startedAt: string;
  totals?: SiteTotals;
  requests: number;
  offset: number;
  rows: number;
  pages: number;
}

export interface ExportTask extends ExportWindow {
  /** Run id of the first attempt; a restart after instability appends `.rN`. */
  runId: string;
  kind: WindowKind;
  checkpoint?: ExportCheckpoint;
}

export type ExportOutcome =
  | { kind: 'complete'; runId: string; rows: number; pages: number; requests: number }
  | { kind: 'waiting'; waitMs: number; checkpoint: ExportCheckpoint };

export interface ExportHooks {
  checkpoint(checkpoint: ExportCheckpoint): Promise<void>;
  progress?(checkpoint: ExportCheckpoint): Promise<void> | void;
}

export async function exportWindow(deps: ExportDeps, task: ExportTask, hooks: ExportHooks): Promise<ExportOutcome> {
  let checkpoint = task.checkpoint ?? freshCheckpoint(task.runId, 0);
  for (;;) {
    try {
      return await runOnce(deps, task, checkpoint, hooks);
    } catch (err) {
      if (!(err instanceof UnstableWindowError)) throw err;
      const failed = checkpoint;
      await recordRunEvent(deps.warehouse, runEvent(task, failed, 'unstable', err.message));
      if (failed.restarts >= deps.settings.unstableRetries) {
        throw new UnstableWindowError(`${err.message}; gave up after ${failed.restarts + 1} runs`);
      }
      deps.logger.warn({ event: 'export_unstable', runId: failed.runId, reason: err.message }, 'window data moved mid-run; starting over');
      const restarts = failed.restarts + 1;
      checkpoint = { ...freshCheckpoint(`${task.runId}.r${restarts}`, restarts), requests: failed.requests };
      await hooks.checkpoint(checkpoint);
    }
  }
}

function freshCheckpoint(runId: string, restarts: number): ExportCheckpoint {
  return { runId, restarts, startedAt: new Date().toISOString(), requests: 0, offset: 0, rows: 0, pages: 0 };
}

function runEvent(task: ExportTask, cp: ExportCheckpoint, status: 'running' | 'failed' | 'unstable', error = '') {
  return {
    runId: cp.runId,
    projectId: task.projectId,
    dateFrom: task.dateFrom,
    dateTo: task.dateTo,
    kind: task.kind,
    status,
    pages: cp.pages,
    rows: cp.rows,
    requests: cp.requests,
    error,
    startedAt: cp.startedAt,
  };
}

type Settled = { ok: true; page: VisitorsPage } | { ok: false; error: unknown };

async function runOnce(deps: ExportDeps, task: ExportTask, start: ExportCheckpoint, hooks: ExportHooks): Promise<ExportOutcome> {
  const { client, warehouse, budget, settings, logger } = deps;
  const stored = await runProgress(warehouse, start.runId);
  if (stored.batches === 0 && start.offset === 0) await recordRunEvent(warehouse, runEvent(task, start, 'running'));
  // Resume after the last stored batch, even if the checkpoint was not saved after it.
  let cp: ExportCheckpoint = { ...start, offset: stored.nextOffset, rows: stored.rows, pages: Math.ceil(stored.nextOffset / PAGE_LIMIT) };
  // The job's logger already carries queue, job id, project and window.
  const log = logger.child({ runId: cp.runId });
  if (stored.nextOffset > 0) log.info({ event: 'export_resume', offset: cp.offset, rows: cp.rows }, 'resuming window');

  const checks = new PageChecks(cp.totals);
  const concurrency = budget.limited ? 1 : settings.prefetchPages;
  const inflight = new Map<number, Promise<Settled>>();
  const startOffset = cp.offset;
  let nextLaunch = cp.offset;
  let consumed = cp.offset;
  let endOffset: number | undefined;
  let waitMs: number | undefined;
  let batch: VisitorRow[] = [];
  let batchStart = cp.offset;
  let lastFlushAt = Date.now();
  let requests = cp.requests;

  const fetchPage = (offset: number): Promise<VisitorsPage> =>
    client.getVisitors(
      task.projectId,
      { dateFrom: task.dateFrom, dateTo: task.dateTo, limit: PAGE_LIMIT, offset },
      {
        beforeAttempt: async () => {
          const take = await budget.tryTake();
          if (!take.granted) throw new BudgetWaitError(take.waitMs);
          requests++;
        },
        logger: log,
        onRateLimited: async (retryAfterMs) => {
          // Someone else spent the organization's budget: hold every worker back, not just this one.
          await budget.pause(retryAfterMs);
          throw new BudgetWaitError(retryAfterMs);
        },
      },
    );

  const launch = () => {
    // Slow start: the window's size is unknown, so the prefetch window grows with the pages seen
    // (1, 1, 2, 2, 3 …) up to its cap; a small window wastes at most a couple of requests past its end.
    const allowed = Math.min(concurrency, 1 + Math.floor((consumed - startOffset) / PAGE_LIMIT / 2));
    while (inflight.size < allowed && waitMs === undefined && endOffset === undefined && nextLaunch / PAGE_LIMIT < settings.maxPages) {
      const offset = nextLaunch;
      nextLaunch += PAGE_LIMIT;
      inflight.set(
        offset,
        fetchPage(offset).then(
          (page): Settled => ({ ok: true, page }),
          (error: unknown): Settled => ({ ok: false, error }),
        ),
      );
    }
  };

  // Without a budget, at most one insert runs while the next batch is being fetched, so loading
  // overlaps fetching and memory holds two batches at most.
  let inserting: Promise<void> | undefined;
  const flush = async (wait: boolean) => {
    if (inserting) await inserting;
    inserting = undefined;
    const rows = batch;
    const from = batchStart;
    const to = consumed;
    const totals = checks.expectedTotals;
    const requestsSoFar = requests;
    batch = [];
    batchStart = consumed;
    lastFlushAt = Date.now();
    checks.batchLoaded();
    const work = (async () => {
      if (rows.length > 0) {
        await insertVisitorBatch(warehouse, {
          runId: cp.runId,
          projectId: task.projectId,
          dateFrom: task.dateFrom,
          dateTo: task.dateTo,
          batchOffset: from,
          batchEnd: to,
          rows,
        });
        deps.observer?.rowsLoaded?.(task.projectId, rows.length);
        log.debug({ event: 'batch_loaded', offset: from, rows: rows.length }, 'batch loaded');
      }
      cp = { ...cp, offset: to, rows: cp.rows + rows.length, pages: Math.ceil(to / PAGE_LIMIT), totals, requests: requestsSoFar };
      await hooks.checkpoint(cp);
      await hooks.progress?.(cp);
    })();
    work.catch(() => {}); // awaited by the next flush or below; this only marks it handled
    inserting = work;
    if (wait) {
      await work;
      inserting = undefined;
    }
  };

  try {
    for (;;) {
      launch();
      const next = inflight.get(consumed);
      if (!next) break;
      const settled = await next;
      inflight.delete(consumed);
      if (!settled.ok) {
        if (settled.error instanceof BudgetWaitError) {
          waitMs = settled.error.waitMs;
          break;
        }
        // Keep what was fetched before the failure: a retry resumes after it.
        await Promise.allSettled(inflight.values());
        await flush(true);
        throw settled.error;
      }
      deps.observer?.pageFetched?.(task.projectId);
      checks.check(settled.page, consumed);
      for (const row of settled.page.visitors) batch.push(row);
      const pageEnd = consumed + settled.page.visitors.length;
      if (!settled.page.hasMore) endOffset = pageEnd;
      consumed = endOffset ?? consumed + PAGE_LIMIT;
      if (endOffset !== undefined) break;
      // Under a budget every request is precious and speed is set by the budget: load each batch
      // before fetching on, so a crash costs at most one batch of requests. Without one, overlap.
      if (batch.length >= settings.batchRows || Date.now() - lastFlushAt >= (settings.flushIntervalMs ?? 5000)) await flush(budget.limited);
    }
  } finally {
    // Pages still in flight past the end or past a budget stop are not consumed; let them settle.
    await Promise.allSettled(inflight.values());
    if (inserting) await inserting.catch(() => {});
  }
  await flush(true);

  if (waitMs !== undefined) {
    log.info({ event: 'export_waiting_for_budget', waitMs, offset: cp.offset }, 'budget spent; waiting');
    return { kind: 'waiting', waitMs, checkpoint: cp };
  }
  if (endOffset === undefined) {
    throw new PaginationError(`window has more than ${settings.maxPages} pages (MINTPIPE_MAX_PAGES); stopped at offset ${consumed}`);
  }
  const duplicate = await findDuplicatePath(warehouse, cp.runId);
  if (duplicate !== null) throw new UnstableWindowError(`path "${duplicate}" seen twice in one run`);
  await completeRun(warehouse, {
    ...runEvent(task, cp, 'running'),
    totals: cp.totals ?? { human: 0, ai: 0, total: 0 },
  });
  log.info({ event: 'export_complete', rows: cp.rows, pages: cp.pages, requests }, 'window complete');
  try {
    await pruneSuperseded(warehouse);
  } catch (err) {
    // Pruning only reclaims space; the window is already complete and correct for readers.
    log.warn({ event: 'prune_failed', err }, 'pruning superseded rows failed');
  }
  return { kind: 'complete', runId: cp.runId, rows: cp.rows, pages: cp.pages, requests };
}
