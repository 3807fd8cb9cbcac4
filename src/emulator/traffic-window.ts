/**
 * A visitors or views window as served: the computed compact window with the knobs applied
 * (seeded order, approximate counts, extra fields). Rows are made on demand per page, so paging a
 * million-path window stays O(limit) after its first page.
 */
import type { ResolvedAnalyticsKnobs } from './analytics-knobs.js';
import type { CompactWindow, SiteTotals, VisitorRow } from './compute-window.js';
import { approximateTraffic, approximation, seededPermutation } from './knob-draws.js';

/** A served row: a VisitorRow, with `_sampleRate` when extra fields are on. */
export type TrafficRow = VisitorRow & { _sampleRate?: number };

/** Which draw of the window totals (rows use their path number, ≥ 0). */
const TOTALS_ITEM = -1;

export class TrafficWindow {
  readonly totals: SiteTotals;
  private readonly order: Uint32Array | null;

  constructor(
    private readonly compact: CompactWindow,
    private readonly knobs: ResolvedAnalyticsKnobs,
    private readonly key: number,
  ) {
    this.order = knobs.shuffle ? seededPermutation(compact.size, key) : null;
    this.totals = approximateTraffic({ ...compact.totals }, approximation(key, TOTALS_ITEM, knobs.approximateCounts));
  }

  get size(): number {
    return this.compact.size;
  }

  /** Rows `offset` … `offset + limit - 1` in serving order (fewer at the end). */
  rows(offset: number, limit: number): TrafficRow[] {
    const end = Math.min(this.size, offset + limit);
    const rows: TrafficRow[] = [];
    for (let r = offset; r < end; r++) {
      const position = this.order ? this.order[r]! : r;
      const how = approximation(this.key, this.compact.pathNumber(position), this.knobs.approximateCounts);
      const row: TrafficRow = approximateTraffic(this.compact.rowAt(position), how);
      if (this.knobs.extraFields) row._sampleRate = 1;
      rows.push(row);
    }
    return rows;
  }
}
