/** Errors of a window export, by what the queue should do about them. */
import { MintpipeError } from '../errors.js';

/** The upstream's pagination broke a rule (empty page with hasMore, a repeated page, the page cap): fail, don't retry. */
export class PaginationError extends MintpipeError {
  override name = 'PaginationError';
}

/** The window's data moved during the run (a path twice, totals changed): re-fetch from the start, a bounded number of times. */
export class UnstableWindowError extends MintpipeError {
  override name = 'UnstableWindowError';
}

/** The shared request budget is spent: the job must wait `waitMs` (as a delayed job, not asleep). */
export class BudgetWaitError extends MintpipeError {
  override name = 'BudgetWaitError';
  constructor(readonly waitMs: number) {
    super(`request budget spent; next request in ${waitMs} ms`);
  }
}
