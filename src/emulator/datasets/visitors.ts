/**
 * Visitors: `GET visitors`, unique visitors per page of a window (the traffic model of
 * compute-window.ts), `pathsFor` paths, paged by offset, site totals on every page.
 */
import type { WindowFixture } from '../analytics-dataset.js';
import { MAX_PATHS_PER_WINDOW, type SiteTotals } from '../compute-window.js';
import type { EmulatorContext } from '../emulator-context.js';
import type { ResolvedEmulatorOptions } from '../emulator-options.js';
import { cachedTraffic, servedTraffic, TRAFFIC_QUERY, trafficAnswer, trafficTruth, type TrafficRow, type TrafficWindow } from '../traffic-window.js';
import type { WindowRef } from '../window-ref.js';

export const visitors: WindowFixture<{ items: TrafficRow[]; totals: SiteTotals }> = {
  kind: 'window',
  path: 'visitors',
  query: TRAFFIC_QUERY,
  answer: (ctx, query, ref) => trafficAnswer(ctx.options, 'visitors', visitorsWindow(ctx, ref), query),
  truth: (options, ref) => trafficTruth(servedTraffic(options, 'visitors', ref, pathCountFor(options, ref))),
};

/** The window as served now, from the emulator's cache. */
export function visitorsWindow(ctx: EmulatorContext, ref: WindowRef): TrafficWindow {
  return cachedTraffic(ctx, 'visitors', ref, pathCountFor(ctx.options, ref));
}

/** The path count a window gets, checked (a `pathsFor` returning nonsense is a test bug worth naming). */
function pathCountFor(options: ResolvedEmulatorOptions, ref: WindowRef): number {
  // Days after today have no visitors yet, whatever `pathsFor` says.
  if (ref.future) return 0;
  const value = options.pathsFor(ref.projectId, ref.dateFrom, ref.dateTo);
  if (!Number.isInteger(value) || value < 0 || value > MAX_PATHS_PER_WINDOW) {
    throw new RangeError(`pathsFor() must be an integer from 0 to ${MAX_PATHS_PER_WINDOW}, got ${value}`);
  }
  return value;
}
