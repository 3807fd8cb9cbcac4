/** Errors of a window export, by what the queue should do about them. */
import { MintpipeError } from '../errors.js';

/** The upstream's pagination broke a rule (empty page with hasMore, a repeated page or cursor, the page cap): fail, don't retry. */
export class PaginationError extends MintpipeError {
  override name = 'PaginationError';
  readonly retryable = false;
}

/** The window's data moved during the run (a key twice, totals changed): re-fetch from the start, a bounded number of times. */
export class UnstableWindowError extends MintpipeError {
  override name = 'UnstableWindowError';
  readonly retryable = false;
}

/**
 * The upstream refused a cursor it gave out (a 400, e.g. after a long wait for budget): the
 * window starts over from its first page, recorded as a `cursor_restarted` finding.
 */
export class CursorRefusedError extends UnstableWindowError {
  override name = 'CursorRefusedError';
}

/** A fanout dataset's source (e.g. `assistant` for threads) has no complete run of the window. */
export class MissingSourceRunError extends MintpipeError {
  override name = 'MissingSourceRunError';
  readonly retryable = false;
}

/** The shared request budget is spent: the job must wait `waitMs` (as a delayed job, not asleep). */
export class BudgetWaitError extends MintpipeError {
  override name = 'BudgetWaitError';
  constructor(readonly waitMs: number) {
    super(`request budget spent; next request in ${waitMs} ms`);
  }
}
