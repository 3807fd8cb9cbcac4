/**
 * Page through a claimed run: fetch each page (PageFetcher), check it (page-read), and load its
 * rows in batches (BatchLoader), moving the checkpoint past each stored batch. Stops at the end,
 * at the page cap, or when the budget is spent — having loaded every page it fetched.
 */
import type { Dataset } from '../datasets/index.js';
import type { ExportDeps, ExportHooks, ExportTask } from './export-types.js';
import { BatchLoader } from './batch-loader.js';
import type { LoadedRun } from './complete-window.js';
import { PageChecks } from './page-checks.js';
import { PageFetcher } from './page-fetcher.js';
import { checkPage, readAnswer } from './page-read.js';
import { END_CURSOR, Pager, type PagerState } from './pager.js';
import type { ClaimedRun } from './run-claim.js';

export interface PagedRun extends LoadedRun {
  /** Nothing is left to fetch. */
  done: boolean;
  /** The budget is spent: wait this long before going on. */
  waitMs?: number;
  /** Where the next page is. */
  position: PagerState;
}

type Parts = { dataset: Dataset; pager: Pager; checks: PageChecks; fetcher: PageFetcher; loader: BatchLoader };

export async function pageWindow(deps: ExportDeps, task: ExportTask, run: ClaimedRun, dataset: Dataset, ids: readonly string[], hooks: ExportHooks): Promise<PagedRun> {
  const { settings, budget, observer } = deps;
  const pager = new Pager(dataset, task, ids);
  const paginated = dataset.pagination.kind === 'offset' || dataset.pagination.kind === 'cursor';
  const checks = new PageChecks({ limit: pager.limit, keyColumn: dataset.keyColumn, keyWith: dataset.keyWith, paginated, cursorPaged: dataset.pagination.kind === 'cursor' }, run.checkpoint.totals);
  const fetcher = new PageFetcher(
    { client: deps.client, budget, dataset, pager, projectId: task.projectId, log: run.log, maxPages: settings.maxPages, prefetchPages: settings.prefetchPages },
    { position: run.position.position, requests: run.checkpoint.requests },
  );
  let cp = run.checkpoint;
  let pages = cp.pages;
  const runWindow = { dataset: task.dataset, runId: cp.runId, projectId: task.projectId, dateFrom: task.dateFrom, dateTo: task.dateTo };
  const loader = new BatchLoader(deps.warehouse, dataset, runWindow, run.position.position, async (batch) => {
    cp = { ...cp, offset: batch.end, cursor: batch.cursor, rows: cp.rows + batch.rows, pages, totals: checks.expectedTotals, requests: fetcher.requests, carried: undefined };
    observer?.rowsLoaded?.(task.projectId, batch.rows, task.dataset);
    run.log.debug({ event: 'batch_loaded', offset: batch.end, rows: batch.rows }, 'batch loaded');
    await hooks.checkpoint(cp);
    await hooks.progress?.(cp);
  });
  if (cp.carried?.length) loader.add([], cp.carried);
  const parts: Parts = { dataset, pager, checks, fetcher, loader };

  let state = run.position;
  let done = run.ended || !pager.hasWork(state);
  let waitMs: number | undefined;
  let lastFlushAt = Date.now();
  try {
    while (!done) {
      const next = fetcher.next(state);
      if (!next) break; // the page cap stopped launching
      const answer = readAnswer(await next, dataset, pager, state);
      if (answer.kind === 'budget') {
        waitMs = answer.waitMs;
        break;
      }
      if (answer.kind === 'failed') {
        // Keep what was fetched before the failure: a retry resumes after it.
        await loader.flush(state.position, state.cursor ?? '', true);
        throw answer.error;
      }
      pages++;
      fetcher.consumed();
      observer?.pageFetched?.(task.projectId, task.dataset);
      ({ state, done } = addPage(parts, answer, state, settings.pii ?? 'keep'));
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
    await fetcher.settle();
    await loader.settle().catch(() => {});
  }
  await loader.flush(state.position, done ? END_CURSOR : (state.cursor ?? ''), true);
  // A resumed run's earlier keys were never in memory here; a fresh run that let none go was checked whole.
  const keysChecked = run.stored.batches === 0 && checks.sawEveryKey;
  return { checkpoint: cp, requests: fetcher.requests, totals: checks.expectedTotals, keysChecked, done, position: state, ...(waitMs === undefined ? {} : { waitMs }) };
}

/** Checks a page and adds its rows and findings to the batch being built; returns where the next page is. */
function addPage(parts: Parts, page: Parameters<typeof checkPage>[0], state: PagerState, pii: Parameters<typeof checkPage>[2]['pii']): { state: PagerState; done: boolean } {
  const checked = checkPage(page, state, { ...parts, pii });
  if (checked.short) {
    const dropped = parts.fetcher.shortPage(checked.after.position, checked.short.items);
    checked.findings.add(
      'short_page',
      `page at offset ${state.position} has ${checked.short.items} rows of limit ${checked.short.limit} and hasMore: true; next offset ${checked.after.position}; ${dropped} requests fetched ahead dropped`,
    );
  }
  parts.loader.add(checked.rows, checked.findings.drain());
  return { state: checked.after, done: checked.done };
}
