/**
 * Check one fetched page: what its answer means for the run (a page, a budget wait, a failure),
 * then its rows, validated and checked for integrity, with the findings that travel with them and
 * where the next page is. No I/O here.
 */
import { InvalidRequestError, NotFoundError } from '../api/index.js';
import { FindingLog, RowContext, type Dataset, type PageView, type PiiMode } from '../datasets/index.js';
import { BudgetWaitError, CursorRefusedError } from './errors.js';
import type { PageChecks } from './page-checks.js';
import type { Settled } from './page-fetcher.js';
import type { Pager, PagerState } from './pager.js';

export type PageAnswer =
  /** A page to read: its body (undefined for a fanout id the upstream does not know) and findings so far. */
  | { kind: 'page'; body: unknown; findings: FindingLog }
  /** The budget is spent: load what was fetched and wait this long. */
  | { kind: 'budget'; waitMs: number }
  /** The run fails with this error, after loading what was fetched before it. */
  | { kind: 'failed'; error: unknown };

/** What the answer to the request at `state` means; a refused cursor throws (the run starts over). */
export function readAnswer(settled: Settled, dataset: Dataset, pager: Pager, state: PagerState): PageAnswer {
  const findings = new FindingLog();
  if (settled.ok) {
    for (const path of settled.repaired) findings.add('invalid_text', `${path}: invalid Unicode replaced with U+FFFD (position ${state.position})`);
    return { kind: 'page', body: settled.body, findings };
  }
  const error = settled.error;
  if (error instanceof BudgetWaitError) return { kind: 'budget', waitMs: error.waitMs };
  // A thread the upstream does not know, or whose id it refuses (the spec lists conversation ids as
  // plain strings, the thread path as a ULID): that thread is a finding, the run goes on.
  if ((error instanceof NotFoundError || error instanceof InvalidRequestError) && dataset.pagination.kind === 'fanout') {
    findings.add('thread_not_found', `${pager.request(state).id ?? ''}: ${error.status ?? ''} ${error.message}`);
    return { kind: 'page', body: undefined, findings };
  }
  if (error instanceof InvalidRequestError && state.cursor !== null) {
    throw new CursorRefusedError(`the upstream refused cursor ${JSON.stringify(state.cursor.slice(0, 40))} at position ${state.position}: ${error.message}`);
  }
  return { kind: 'failed', error };
}

export interface CheckedPage {
  rows: Record<string, unknown>[];
  /** The page's findings; the caller may add its own before draining them into the batch. */
  findings: FindingLog;
  /** Where the next page is. */
  after: PagerState;
  done: boolean;
  /** An offset page shorter than the limit that says more follow: the offsets moved by its size. */
  short?: { items: number; limit: number };
}

/** Validates the page's rows, checks it against the pages before (PageChecks throws when the data moved), and steps the pager. */
export function checkPage(
  page: { body: unknown; findings: FindingLog },
  state: PagerState,
  parts: { dataset: Dataset; pager: Pager; checks: PageChecks; pii: PiiMode },
): CheckedPage {
  const { dataset, pager, checks, pii } = parts;
  const findings = page.findings;
  const ctx = new RowContext(findings, pii);
  const view: PageView<unknown> = page.body === undefined ? { items: [], hasMore: false } : dataset.page(page.body, ctx);
  const rows = view.items.map((item) => dataset.row(item, ctx));
  checks.check(view, rows, state.position, state.cursor);
  const { state: after, done } = pager.next(state, view);
  const limit = pager.limit;
  const short = dataset.pagination.kind === 'offset' && !done && limit !== undefined && view.items.length < limit ? { items: view.items.length, limit } : undefined;
  if (dataset.pagination.kind === 'single' && view.hasMore) {
    findings.add('truncated', `the answer holds ${view.items.length} rows and says hasMore: true; the endpoint has no way to fetch the rest`);
  }
  return { rows, findings, after, done, ...(short ? { short } : {}) };
}
