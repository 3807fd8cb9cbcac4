/**
 * A visitors or views window as served (the traffic model both share): the computed compact window
 * with the knobs applied (seeded order, approximate counts, extra fields). Rows are made on demand
 * per page, so paging a million-path window stays O(limit) after its first page. Both page by
 * offset with the same answer: `{ totals, <rows>, hasMore }`.
 */
import type { ResolvedAnalyticsKnobs } from './analytics-knobs.js';
import { offsetPageSize } from './analytics-paging.js';
import type { AnalyticsQuery, QuerySpec } from './analytics-query.js';
import { computeCompactWindow, type CompactWindow, type SiteTotals, type TrafficMeasure, type VisitorRow } from './compute-window.js';
import type { Answer, EmulatorContext } from './emulator-context.js';
import type { ResolvedEmulatorOptions } from './emulator-options.js';
import { approximateTraffic, approximation, knobKey, seededPermutation } from './knob-draws.js';
import type { WindowRef } from './window-ref.js';

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

/** `limit` an integer 1–250 (default 50), `offset` an integer ≥ 0: the spec's visitors and views. */
export const TRAFFIC_QUERY = { limit: { min: 1, max: 250, default: 50, integer: true }, offset: true } as const satisfies QuerySpec;

/** A traffic window of `count` paths as served now (not cached). */
export function servedTraffic(options: ResolvedEmulatorOptions, measure: TrafficMeasure, ref: WindowRef, count: number): TrafficWindow {
  const compact = computeCompactWindow(options.seed, ref.projectId, ref.fromMs, ref.toMs, count, ref.revision, measure);
  return new TrafficWindow(compact, options, knobKey(options.seed, measure, ref.projectId, ref.fromMs, ref.toMs, ref.revision));
}

/** The served window from the emulator's cache (computed on its first page). */
export function cachedTraffic(ctx: EmulatorContext, measure: TrafficMeasure, ref: WindowRef, count: number): TrafficWindow {
  return ctx.windows.cached(`${measure}\u0000${count}`, ref, () => {
    const window = servedTraffic(ctx.options, measure, ref, count);
    return { value: window, weight: window.size };
  });
}

/** One offset page of the window. */
export function trafficAnswer(options: ResolvedEmulatorOptions, field: TrafficMeasure, window: TrafficWindow, query: AnalyticsQuery): Answer {
  const rows = window.rows(query.offset, offsetPageSize(options, query.limit));
  return { status: 200, body: { totals: { ...window.totals }, [field]: rows, hasMore: query.offset + rows.length < window.size } };
}

/** Every row of the window, and its totals. */
export function trafficTruth(window: TrafficWindow): { items: TrafficRow[]; totals: SiteTotals } {
  return { items: window.rows(0, window.size), totals: { ...window.totals } };
}
