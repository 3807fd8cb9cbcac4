/**
 * Views: `GET views`, page views per page of a window (the traffic model of compute-window.ts as
 * events), paged by offset. Its item count defaults to `pathsFor`, so views and visitors of a
 * window cover the same pages.
 */
import type { WindowFixture } from '../analytics-dataset.js';
import { itemCountFor } from '../analytics-knobs.js';
import { MAX_PATHS_PER_WINDOW, type SiteTotals } from '../compute-window.js';
import type { ResolvedEmulatorOptions } from '../emulator-options.js';
import { cachedTraffic, servedTraffic, TRAFFIC_QUERY, trafficAnswer, trafficTruth, type TrafficRow } from '../traffic-window.js';
import type { WindowRef } from '../window-ref.js';

export const views: WindowFixture<{ items: TrafficRow[]; totals: SiteTotals }> = {
  kind: 'window',
  path: 'views',
  query: TRAFFIC_QUERY,
  answer: (ctx, query, ref) => trafficAnswer(ctx.options, 'views', cachedTraffic(ctx, 'views', ref, viewCount(ctx.options, ref)), query),
  truth: (options, ref) => trafficTruth(servedTraffic(options, 'views', ref, viewCount(options, ref))),
};

function viewCount(options: ResolvedEmulatorOptions, ref: WindowRef): number {
  return itemCountFor(options, 'views', ref, options.pathsFor, MAX_PATHS_PER_WINDOW);
}
