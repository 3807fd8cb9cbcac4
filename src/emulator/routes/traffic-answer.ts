/** The page answer of the two offset endpoints: `{ totals, <rows>, hasMore }`. */
import { offsetPageSize } from '../analytics-paging.js';
import type { AnalyticsQuery, QuerySpec } from '../analytics-query.js';
import type { Answer, EmulatorContext } from '../emulator-context.js';
import type { TrafficWindow } from '../traffic-window.js';

/** `limit` an integer 1–250 (default 50), `offset` an integer ≥ 0: the spec's visitors and views. */
export const TRAFFIC_QUERY = { limit: { min: 1, max: 250, default: 50, integer: true }, offset: true } as const satisfies QuerySpec;

export function trafficAnswer(ctx: EmulatorContext, field: 'visitors' | 'views', window: TrafficWindow, query: AnalyticsQuery): Answer {
  const rows = window.rows(query.offset, offsetPageSize(ctx.options, query.limit));
  return { status: 200, body: { totals: { ...window.totals }, [field]: rows, hasMore: query.offset + rows.length < window.size } };
}
