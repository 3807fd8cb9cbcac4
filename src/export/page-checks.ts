/**
 * Integrity rules for the pages of one run, applied in order before anything is loaded. What the
 * spec promises is enforced (a page within its limit, no page or cursor served twice, no empty
 * offset page that says `hasMore`: its next offset would be its own; an empty cursor page with a
 * new cursor is progress); data that moved mid-run (a key seen twice, totals that change) makes
 * the run unstable. Keys are checked here against the current batch and the page before it;
 * repeats across batches are found in the warehouse before the run completes (memory stays flat).
 */
import type { PageView } from '../datasets/index.js';
import { PaginationError, UnstableWindowError } from './errors.js';

export class PageChecks {
  private totals: Record<string, unknown> | undefined;
  private previousSignature: string | undefined;
  private recentKeys = new Set<string>();
  private previousPageKeys: string[] = [];
  private readonly cursors = new Set<string>();
  private forgotKeys = false;

  constructor(
    private readonly options: { limit: number | undefined; keyColumn: string | undefined; keyWith?: readonly string[]; paginated: boolean; cursorPaged?: boolean },
    totals?: Record<string, unknown>,
  ) {
    this.totals = totals;
  }

  /** The window totals every page of this run must repeat. */
  get expectedTotals(): Record<string, unknown> | undefined {
    return this.totals;
  }

  /** Checks a page given the rows it maps to (for the keys) and the cursor it was fetched with. */
  check(page: PageView<unknown>, rows: readonly Record<string, unknown>[], position: number, cursor: string | null): void {
    const { limit, keyColumn, keyWith = [], paginated, cursorPaged = false } = this.options;
    if (limit !== undefined && page.items.length > limit) {
      throw new PaginationError(`page at position ${position} has ${page.items.length} rows, more than the limit ${limit}`);
    }
    if (paginated && !cursorPaged && page.items.length === 0 && page.hasMore) {
      throw new PaginationError(`page at position ${position} is empty but says hasMore: true`);
    }
    // A cursor handed out again would fetch a page again (or loop): refused before it is spent.
    if (cursor !== null) this.cursors.add(cursor);
    const next = page.nextCursor ?? null;
    if (page.hasMore && next !== null && (this.cursors.has(next) || next === cursor)) {
      throw new PaginationError(`cursor ${JSON.stringify(next.slice(0, 40))} was handed out twice (page at position ${position})`);
    }
    if (page.totals) {
      if (!this.totals) this.totals = page.totals;
      else if (!sameValues(this.totals, page.totals)) {
        throw new UnstableWindowError(
          `totals changed between pages (position ${position}: ${JSON.stringify(page.totals)} vs ${JSON.stringify(this.totals)})`,
        );
      }
    }
    if (!keyColumn) return;
    const keys = keyWith.length === 0 ? rows.map((row) => String(row[keyColumn])) : rows.map((row) => JSON.stringify([keyColumn, ...keyWith].map((c) => row[c])));
    const signature = JSON.stringify(keys);
    if (paginated && keys.length > 0 && signature === this.previousSignature) {
      throw new PaginationError(`page at position ${position} repeats the previous page`);
    }
    this.previousSignature = signature;
    for (const key of keys) {
      if (this.recentKeys.has(key)) {
        throw new UnstableWindowError(`${[keyColumn, ...keyWith].join(', ')} ${JSON.stringify(key.slice(0, 80))} seen twice in one run (position ${position})`);
      }
      this.recentKeys.add(key);
    }
    this.previousPageKeys = keys;
  }

  /** A batch was loaded: keep only the last page's keys to compare with the next page. */
  batchLoaded(): void {
    if (this.recentKeys.size > this.previousPageKeys.length) this.forgotKeys = true;
    this.recentKeys = new Set(this.previousPageKeys);
  }

  /**
   * Whether every key of the run so far was compared with every other here: then the warehouse need
   * not look for a key stored twice. False once a loaded batch's keys were let go.
   */
  get sawEveryKey(): boolean {
    return !this.forgotKeys;
  }
}

function sameValues(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
