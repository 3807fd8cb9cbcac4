/**
 * Exports one (dataset, project, window): prefetch → validate → load → complete.
 *
 * - Pages come in position order (rows received so far; ids for fanout). Offset pages may be
 *   fetched ahead when the budget is off; a short page moves the offsets, so pages fetched ahead
 *   at offsets it made wrong are dropped and fetched again at the right ones (a `short_page`
 *   finding says how many requests that cost; under a budget nothing is fetched ahead).
 * - Every page is validated (schema in the client, integrity in PageChecks) before its rows are
 *   added to a batch; findings (approximate counts, invalid text, short pages) travel with it.
 * - Every request takes a slot from the shared budget first; when none is left the pages already
 *   fetched are loaded, progress is checkpointed, and the caller is told how long to wait.
 * - The warehouse is the source of truth for what was loaded: a resumed run continues after its
 *   last stored batch (position and cursor), so a loaded page is never fetched again.
 * - The run is marked complete last: that one insert switches readers to it.
 */
import { InvalidRequestError, NotFoundError, type MintlifyClient } from '../api/index.js';
import { FindingLog, getDataset, RowContext, type Dataset, type DatasetName, type Finding, type PageView, type PiiMode } from '../datasets/index.js';
import type { Logger } from '../logger.js';
import type { RequestBudget } from '../queue/request-budget.js';
import {
  completeRun,
  findDuplicateKey,
  latestCompleteRun,
  latestResumableRun,
  otherRunsOfWindow,
  pruneSuperseded,
  recordRunEvent,
  runProgress,
  selectRows,
  tableName,
  type Warehouse,
} from '../warehouse/index.js';
import { BatchLoader } from './batch-loader.js';
import { BudgetWaitError, CursorRefusedError, MissingSourceRunError, PaginationError, UnstableWindowError } from './errors.js';
import { PageChecks } from './page-checks.js';
import { END_CURSOR, Pager, type PageRequest, type PagerState } from './pager.js';
import type { ExportWindow, WindowKind } from './windows.js';

export interface ExportSettings {
  /** Pages in flight at once when the budget is off. @default 16 */
  prefetchPages: number;
  /** Rows per insert. @default 5000 */
  batchRows: number;
  /** A window with more pages fails. @default 20000 */
  maxPages: number;
  /** Fresh runs after the data moved mid-run (or a cursor was refused). @default 2 */
  unstableRetries: number;
  /** Load what was fetched at least this often while pages trickle in. @default 5000 */
  flushIntervalMs?: number;
  /** Personal fields (feedback `contact`): kept, hashed or dropped. @default keep */
  pii?: PiiMode;
}

/** Counters the metrics layer may observe. */
export interface ExportObserver {
  pageFetched?(projectId: string, dataset?: DatasetName): void;
  rowsLoaded?(projectId: string, rows: number, dataset?: DatasetName): void;
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
  /** Window totals seen on the run's pages (datasets with totals). */
  totals?: Record<string, unknown>;
  requests: number;
  /** Position after the last loaded batch. */
  offset: number;
  /** Cursor after the last loaded batch. */
  cursor?: string;
  rows: number;
  pages: number;
  /** Waits for a fanout source run so far. */
  sourceWaits?: number;
  /** Findings to record with the run's first batch (why it started over). */
  carried?: Finding[];
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

/** Waits for a fanout source run: how long each time, and how many times before failing. */
const SOURCE_WAIT_MS = 5_000;
const SOURCE_WAITS = 720;

export async function exportWindow(deps: ExportDeps, task: ExportTask, hooks: ExportHooks): Promise<ExportOutcome> {
  let checkpoint = task.checkpoint ?? (await adoptAbandonedRun(deps, task, hooks)) ?? freshCheckpoint(task.runId, 0);
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
      const carried: Finding[] = err instanceof CursorRefusedError ? [{ kind: 'cursor_restarted', detail: `${err.message}; run ${failed.runId} started over` }] : [];
      checkpoint = { ...freshCheckpoint(`${task.runId}.r${restarts}`, restarts), requests: failed.requests, carried };
      await hooks.checkpoint(checkpoint);
    }
  }
}

/**
 * A window enqueued again after its job was lost (e.g. Redis restarted empty) resumes the run that
 * was left behind — marked `abandoned`, its rows kept — instead of paying its requests again.
 */
async function adoptAbandonedRun(deps: ExportDeps, task: ExportTask, hooks: ExportHooks): Promise<ExportCheckpoint | undefined> {
  const run = await latestResumableRun(deps.warehouse, task);
  if (!run) return undefined;
  const checkpoint: ExportCheckpoint = { ...freshCheckpoint(run.runId, 0), startedAt: run.startedAt.toISOString(), requests: run.requests };
  deps.logger.info({ event: 'export_adopt_abandoned', runId: run.runId, rows: run.rows }, 'resuming the run this window left behind');
  await recordRunEvent(deps.warehouse, runEvent(task, { ...checkpoint, rows: run.rows, pages: run.pages }, 'running'));
  await hooks.checkpoint(checkpoint);
  return checkpoint;
}

function freshCheckpoint(runId: string, restarts: number): ExportCheckpoint {
  return { runId, restarts, startedAt: new Date().toISOString(), requests: 0, offset: 0, rows: 0, pages: 0 };
}

export function runEvent(task: ExportTask, cp: ExportCheckpoint, status: 'running' | 'failed' | 'unstable' | 'abandoned', error = '') {
  return {
    runId: cp.runId,
    dataset: task.dataset,
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

type Settled = { ok: true; body: unknown; repaired: string[] } | { ok: false; error: unknown };

async function runOnce(deps: ExportDeps, task: ExportTask, start: ExportCheckpoint, hooks: ExportHooks): Promise<ExportOutcome> {
  const { client, warehouse, budget, settings, logger } = deps;
  const dataset = getDataset(task.dataset);
  const stored = await runProgress(warehouse, dataset.table, start.runId);
  // A run's first event; seq 1 needs no look-up of the run's events (its last event is what readers see).
  if (stored.batches === 0 && start.offset === 0) await recordRunEvent(warehouse, { ...runEvent(task, start, 'running'), seq: 1 });
  // Resume after the last stored batch, even if the checkpoint was not saved after it.
  let cp: ExportCheckpoint = { ...start, offset: stored.nextOffset, rows: stored.rows };
  // The job's logger already carries queue, job id, dataset, project and window.
  const log = logger.child({ runId: cp.runId });
  if (stored.nextOffset > 0) log.info({ event: 'export_resume', offset: cp.offset, rows: cp.rows }, 'resuming window');

  let ids: string[] = [];
  if (dataset.pagination.kind === 'fanout') {
    const source = await fanoutIds(warehouse, dataset, task);
    if (source === null) {
      const waits = (cp.sourceWaits ?? 0) + 1;
      if (waits > SOURCE_WAITS) {
        throw new MissingSourceRunError(`no complete ${dataset.pagination.source} run of ${task.dateFrom}..${task.dateTo}; export it first`);
      }
      log.info({ event: 'export_waiting_for_source', source: dataset.pagination.source }, 'waiting for the source dataset');
      return { kind: 'waiting', waitMs: SOURCE_WAIT_MS, checkpoint: { ...cp, sourceWaits: waits } };
    }
    ids = source;
  }

  const pager = new Pager(dataset, task, ids);
  const paginated = dataset.pagination.kind === 'offset' || dataset.pagination.kind === 'cursor';
  const checks = new PageChecks({ limit: pager.limit, keyColumn: dataset.keyColumn, paginated }, cp.totals);
  let requests = cp.requests;
  let state: PagerState = { position: stored.nextOffset, cursor: stored.batches > 0 && stored.cursor !== '' && stored.cursor !== END_CURSOR ? stored.cursor : null };
  let done = stored.cursor === END_CURSOR || !pager.hasWork(state);
  let pages = cp.pages;
  const runWindow = { dataset: task.dataset, runId: cp.runId, projectId: task.projectId, dateFrom: task.dateFrom, dateTo: task.dateTo };
  const loader = new BatchLoader(warehouse, dataset, runWindow, state.position, async (batch) => {
    cp = { ...cp, offset: batch.end, cursor: batch.cursor, rows: cp.rows + batch.rows, pages, totals: checks.expectedTotals, requests, carried: undefined };
    deps.observer?.rowsLoaded?.(task.projectId, batch.rows, task.dataset);
    log.debug({ event: 'batch_loaded', offset: batch.end, rows: batch.rows }, 'batch loaded');
    await hooks.checkpoint(cp);
    await hooks.progress?.(cp);
  });
  if (cp.carried?.length) loader.add([], cp.carried);

  const fetchPage = (request: PageRequest): Promise<Settled> => {
    // This page's current attempt's slot: pages fetched ahead run at once, each with its own.
    let slot: string | undefined;
    return client
      .getAnalyticsPage(task.projectId, request.endpoint, request.params, dataset.schema, {
        beforeAttempt: async () => {
          const take = await budget.tryTake();
          if (!take.granted) throw new BudgetWaitError(take.waitMs);
          slot = take.slot;
          requests++;
        },
        // Never left the machine: neither the shared budget nor the run's request count used it.
        onNotSent: async () => {
          requests--;
          await budget.giveBack(slot);
        },
        // The server counted it by its answer at the latest: the slot counts a window from there.
        afterAttempt: () => budget.settle(slot),
        logger: log,
        onRateLimited: async (retryAfterMs) => {
          // Someone else spent the organization's budget: hold every worker back, not just this one.
          await budget.pause(retryAfterMs);
          throw new BudgetWaitError(retryAfterMs);
        },
      })
      .then(
        (parsed): Settled => ({ ok: true, body: parsed.value, repaired: parsed.repaired }),
        (error: unknown): Settled => ({ ok: false, error }),
      );
  };

  // Prefetch: offset pages ahead of the one consumed, keyed by position. Slow start: the window's
  // size is unknown, so the number ahead grows with the pages seen (1, 1, 2, 2, 3 …) up to its cap.
  const inflight = new Map<number, Promise<Settled>>();
  const concurrency = budget.limited || !pager.canFetchAhead ? 1 : settings.prefetchPages;
  let step = pager.limit ?? 1;
  let ahead = state.position;
  let launched = 0;
  let consumedPages = 0;
  let waitMs: number | undefined;
  let lastFlushAt = Date.now();
  const launch = () => {
    if (!pager.canFetchAhead) {
      if (inflight.size === 0 && launched < settings.maxPages) {
        inflight.set(state.position, fetchPage(pager.request(state)));
        launched++;
      }
      return;
    }
    const allowed = Math.min(concurrency, 1 + Math.floor(consumedPages / 2));
    ahead = Math.max(ahead, state.position);
    while (inflight.size < allowed && launched < settings.maxPages) {
      inflight.set(ahead, fetchPage(pager.request({ position: ahead, cursor: null })));
      ahead += step;
      launched++;
    }
  };
  const dropFetchedAhead = (): number => {
    const dropped = inflight.size;
    inflight.clear(); // their answers are ignored; they settle on their own
    return dropped;
  };

  try {
    while (!done) {
      launch();
      const next = inflight.get(state.position);
      if (!next) break; // the page cap stopped launching
      const settled = await next;
      inflight.delete(state.position);
      const requestedWith = state.cursor;
      let body: unknown;
      const findings = new FindingLog();
      if (settled.ok) {
        body = settled.body;
        for (const path of settled.repaired) findings.add('invalid_text', `${path}: invalid Unicode replaced with U+FFFD (position ${state.position})`);
      } else if (settled.error instanceof BudgetWaitError) {
        waitMs = settled.error.waitMs;
        break;
      } else if (settled.error instanceof NotFoundError && dataset.pagination.kind === 'fanout') {
        findings.add('thread_not_found', `${pager.request(state).id ?? ''}: 404 ${settled.error.message}`);
      } else if (settled.error instanceof InvalidRequestError && requestedWith !== null) {
        throw new CursorRefusedError(`the upstream refused cursor ${JSON.stringify(requestedWith.slice(0, 40))} at position ${state.position}: ${settled.error.message}`);
      } else {
        // Keep what was fetched before the failure: a retry resumes after it.
        await loader.flush(state.position, state.cursor ?? '', true);
        throw settled.error;
      }
      pages++;
      consumedPages++;
      deps.observer?.pageFetched?.(task.projectId, task.dataset);

      const ctx = new RowContext(findings, settings.pii ?? 'keep');
      const view: PageView<unknown> = body === undefined ? { items: [], hasMore: false } : dataset.page(body, ctx);
      const rows = view.items.map((item) => dataset.row(item, ctx));
      checks.check(view, rows, state.position, requestedWith);
      const { state: after, done: finished } = pager.next(state, view);
      const limit = pager.limit;
      if (dataset.pagination.kind === 'offset' && !finished && limit !== undefined && view.items.length < limit) {
        const dropped = inflight.size > 0 && !inflight.has(after.position) ? dropFetchedAhead() : 0;
        findings.add('short_page', `page at offset ${state.position} has ${view.items.length} rows of limit ${limit} and hasMore: true; next offset ${after.position}; ${dropped} requests fetched ahead dropped`);
        step = view.items.length;
        ahead = after.position;
      }
      if (dataset.pagination.kind === 'single' && view.hasMore) {
        findings.add('truncated', `the answer holds ${view.items.length} rows and says hasMore: true; the endpoint has no way to fetch the rest`);
      }
      loader.add(rows, findings.drain());
      state = after;
      done = finished;
      if (done) break;
      // Under a budget every request is precious and speed is set by the budget: load each batch
      // before fetching on, so a crash costs at most one batch of requests. Without one, overlap.
      if (loader.pendingRows >= settings.batchRows || Date.now() - lastFlushAt >= (settings.flushIntervalMs ?? 5000)) {
        lastFlushAt = Date.now();
        // Memory stays flat: the checks let go of the batch's keys (the warehouse checks them at the end).
        checks.batchLoaded();
        await loader.flush(state.position, state.cursor ?? '', budget.limited);
      }
    }
  } finally {
    // Pages still in flight past the end or past a budget stop are not consumed; let them settle.
    await Promise.allSettled(inflight.values());
    await loader.settle().catch(() => {});
  }
  await loader.flush(state.position, done ? END_CURSOR : (state.cursor ?? ''), true);

  if (waitMs !== undefined) {
    log.info({ event: 'export_waiting_for_budget', waitMs, offset: cp.offset }, 'budget spent; waiting');
    return { kind: 'waiting', waitMs, checkpoint: cp };
  }
  if (!done) {
    throw new PaginationError(`window has more than ${settings.maxPages} pages (MINTPIPE_MAX_PAGES); stopped at position ${state.position}`);
  }
  // A resumed run's earlier keys were never in memory here; a fresh run that let none go was checked whole.
  const keysChecked = stored.batches === 0 && checks.sawEveryKey;
  return complete(deps, task, dataset, cp, checks.expectedTotals, requests, log, keysChecked);
}

async function complete(
  deps: ExportDeps,
  task: ExportTask,
  dataset: Dataset,
  cp: ExportCheckpoint,
  totals: Record<string, unknown> | undefined,
  requests: number,
  log: Logger,
  keysChecked: boolean,
): Promise<ExportOutcome> {
  const { warehouse } = deps;
  if (dataset.keyColumn && !keysChecked) {
    const duplicate = await findDuplicateKey(warehouse, dataset.table, dataset.keyColumn, cp.runId);
    if (duplicate !== null) throw new UnstableWindowError(`${dataset.keyColumn} ${JSON.stringify(duplicate.slice(0, 80))} seen twice in one run`);
  }
  if (dataset.totalsTable && !totals) throw new UnstableWindowError('window totals were lost with the checkpoint');
  await completeRun(warehouse, {
    ...runEvent(task, { ...cp, requests }, 'running'),
    table: dataset.table,
    totals: dataset.totalsTable && totals ? { table: dataset.totalsTable, columns: totals } : undefined,
  });
  log.info({ event: 'export_complete', rows: cp.rows, pages: cp.pages, requests }, 'window complete');
  await pruneDataset(warehouse, dataset, task, cp.runId, log);
  return { kind: 'complete', runId: cp.runId, rows: cp.rows, pages: cp.pages, requests };
}

/** A nightly window is new (nothing to supersede): prune at most this often per dataset then. */
const NIGHTLY_PRUNE_INTERVAL_MS = 60_000;
const lastPruneAt = new Map<string, number>();

/**
 * Reclaims the rows of this dataset's runs no reader sees any more (the run a re-export superseded,
 * failed runs): only the dataset's own tables are scanned and cleaned. After a re-export or a manual
 * export whose window had earlier runs (which it may supersede) always; after a nightly window, at
 * most once a minute per dataset, so a night of many small windows is not one sweep per window.
 * A manual export of a window no run touched before superseded nothing: like a nightly window, it
 * leaves the sweep (~0.1 s and ~20 MB of engine memory for its join) to the next one that does.
 */
async function pruneDataset(warehouse: Warehouse, dataset: Dataset, task: ExportTask, runId: string, log: Logger): Promise<void> {
  const now = performance.now();
  if (task.kind === 'nightly' && now - (lastPruneAt.get(dataset.name) ?? -Infinity) < NIGHTLY_PRUNE_INTERVAL_MS) return;
  try {
    if (task.kind === 'manual' && (await otherRunsOfWindow(warehouse, task, runId)) === 0) return;
    lastPruneAt.set(dataset.name, now);
    await pruneSuperseded(warehouse, dataset.totalsTable ? [dataset.table, dataset.totalsTable] : [dataset.table]);
  } catch (err) {
    // Pruning only reclaims space; the window is already complete and correct for readers.
    log.warn({ event: 'prune_failed', err }, 'pruning superseded rows failed');
  }
}

/** The ids a fanout dataset asks for: listed by the source dataset's complete run of the window, or null when there is none. */
async function fanoutIds(warehouse: Warehouse, dataset: Dataset, window: ExportWindow): Promise<string[] | null> {
  const pagination = dataset.pagination;
  if (pagination.kind !== 'fanout') return [];
  const source = getDataset(pagination.source);
  const run = await latestCompleteRun(warehouse, source.name, window.projectId, window.dateFrom, window.dateTo);
  if (!run) return null;
  const rows = await selectRows<{ id: string }>(warehouse, pagination.idsSql(tableName(warehouse, source.table)), { runId: run.runId });
  return rows.map((row) => row.id).filter((id) => id !== '');
}
