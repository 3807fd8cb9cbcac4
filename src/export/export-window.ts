/**
 * Exports one (dataset, project, window) as a sequence of steps, each in its own module:
 *
 * 1. claim or resume the run (run-claim.ts): the warehouse is the source of truth for what was
 *    loaded, so a resumed run continues after its last stored batch and a loaded page is never
 *    fetched again;
 * 2. page (page-fetcher.ts): every request takes a slot from the shared budget first; offset pages
 *    may be fetched ahead when the budget is off, and a short page drops those it made wrong;
 * 3. check (page-read.ts, page-checks.ts): every page is validated and checked for integrity before
 *    its rows are added to a batch; findings travel with it;
 * 4. load (page-window.ts, batch-loader.ts): batches are stored and checkpointed; when the budget is
 *    spent the pages already fetched are loaded and the caller is told how long to wait;
 * 5. complete (complete-window.ts): the run is marked complete last, and that one insert switches
 *    readers to it.
 *
 * When the data moves mid-run the window starts over with a fresh run, a bounded number of times.
 */
import { getDataset, type Finding } from '../datasets/index.js';
import { recordRunEvent } from '../warehouse/index.js';
import { completeWindow } from './complete-window.js';
import { CursorRefusedError, PaginationError, UnstableWindowError } from './errors.js';
import type { ExportCheckpoint, ExportDeps, ExportHooks, ExportOutcome, ExportTask } from './export-types.js';
import { fanoutSource } from './fanout-source.js';
import { pageWindow } from './page-window.js';
import { adoptAbandonedRun, claimRun, freshCheckpoint, runEvent } from './run-claim.js';

export type { ExportCheckpoint, ExportDeps, ExportHooks, ExportObserver, ExportOutcome, ExportSettings, ExportTask } from './export-types.js';
export { runEvent } from './run-claim.js';

export async function exportWindow(deps: ExportDeps, task: ExportTask, hooks: ExportHooks): Promise<ExportOutcome> {
  let checkpoint = task.checkpoint ?? (await adoptAbandonedRun(deps, task, hooks)) ?? freshCheckpoint(task.runId, 0);
  for (;;) {
    try {
      return await runOnce(deps, task, checkpoint, hooks);
    } catch (err) {
      if (!(err instanceof UnstableWindowError)) throw err;
      checkpoint = await startOver(deps, task, checkpoint, err);
      await hooks.checkpoint(checkpoint);
    }
  }
}

/** The data moved under run `failed`: records why, and returns a fresh run's checkpoint (or gives up). */
async function startOver(deps: ExportDeps, task: ExportTask, failed: ExportCheckpoint, err: UnstableWindowError): Promise<ExportCheckpoint> {
  await recordRunEvent(deps.warehouse, runEvent(task, failed, 'unstable', err.message));
  if (failed.restarts >= deps.settings.unstableRetries) {
    throw new UnstableWindowError(`${err.message}; gave up after ${failed.restarts + 1} runs`);
  }
  deps.logger.warn({ event: 'export_unstable', runId: failed.runId, reason: err.message }, 'window data moved mid-run; starting over');
  const restarts = failed.restarts + 1;
  const carried: Finding[] = err instanceof CursorRefusedError ? [{ kind: 'cursor_restarted', detail: `${err.message}; run ${failed.runId} started over` }] : [];
  return { ...freshCheckpoint(`${task.runId}.r${restarts}`, restarts), requests: failed.requests, carried };
}

async function runOnce(deps: ExportDeps, task: ExportTask, start: ExportCheckpoint, hooks: ExportHooks): Promise<ExportOutcome> {
  const dataset = getDataset(task.dataset);
  const run = await claimRun(deps, task, dataset, start);
  const source = await fanoutSource(deps.warehouse, dataset, task, run.checkpoint, run.log);
  if ('waiting' in source) return source.waiting;
  const paged = await pageWindow(deps, task, run, dataset, source.ids, hooks);
  if (paged.waitMs !== undefined) {
    run.log.info({ event: 'export_waiting_for_budget', waitMs: paged.waitMs, offset: paged.checkpoint.offset }, 'budget spent; waiting');
    return { kind: 'waiting', waitMs: paged.waitMs, for: 'budget', checkpoint: paged.checkpoint };
  }
  if (!paged.done) {
    throw new PaginationError(`window has more than ${deps.settings.maxPages} pages (MINTPIPE_MAX_PAGES); stopped at position ${paged.position.position}`);
  }
  return completeWindow(deps.warehouse, task, dataset, paged, run.log);
}
