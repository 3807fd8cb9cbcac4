/**
 * Integrity rules for the pages of one run, applied in offset order before anything is loaded.
 * Paths are checked for repeats within the current batch and the page before it here; repeats
 * across batches are found in the warehouse before the run completes (memory stays flat).
 */
import type { SiteTotals, VisitorsPage } from '../api/index.js';
import { PaginationError, UnstableWindowError } from './errors.js';

export class PageChecks {
  private totals: SiteTotals | undefined;
  private previousSignature = '';
  private recentPaths = new Set<string>();
  private previousPagePaths: string[] = [];

  constructor(totals?: SiteTotals) {
    this.totals = totals;
  }

  /** The site totals every page of this run must repeat. */
  get expectedTotals(): SiteTotals | undefined {
    return this.totals;
  }

  check(page: VisitorsPage, offset: number): void {
    if (page.visitors.length === 0 && page.hasMore) {
      throw new PaginationError(`page at offset ${offset} is empty but says hasMore: true`);
    }
    if (!this.totals) this.totals = page.totals;
    else if (!sameTotals(this.totals, page.totals)) {
      throw new UnstableWindowError(
        `totals changed between pages (offset ${offset}: ${JSON.stringify(page.totals)} vs ${JSON.stringify(this.totals)})`,
      );
    }
    const signature = page.visitors.map((v) => `${v.path}\u0000${v.total}`).join('\u0001');
    if (page.visitors.length > 0 && signature === this.previousSignature) {
      throw new PaginationError(`page at offset ${offset} repeats the previous page`);
    }
    this.previousSignature = signature;
    for (const row of page.visitors) {
      if (this.recentPaths.has(row.path)) throw new UnstableWindowError(`path "${row.path}" seen twice in one run (offset ${offset})`);
      this.recentPaths.add(row.path);
    }
    this.previousPagePaths = page.visitors.map((v) => v.path);
  }

  /** A batch was loaded: keep only the last page's paths to compare with the next page. */
  batchLoaded(): void {
    this.recentPaths = new Set(this.previousPagePaths);
  }
}

export function sameTotals(a: SiteTotals, b: SiteTotals): boolean {
  return a.human === b.human && a.ai === b.ai && a.total === b.total;
}
