/** Page views per page of a window: like visitors (offset + limit, totals on every page). */
import { z } from 'zod';
import { humanAiTotal } from './counts.js';
import { defineDataset } from './dataset.js';
import { pathCountsRow, pathCountsTotals, type PathCounts } from './path-counts.js';

const schema = z.looseObject({
  totals: z.looseObject(humanAiTotal),
  views: z.array(z.looseObject({ path: z.string(), ...humanAiTotal })),
  hasMore: z.boolean(),
});

export const views = defineDataset<z.output<typeof schema>, PathCounts>({
  name: 'views',
  endpoint: 'views',
  pagination: { kind: 'offset', limit: 250 },
  schema,
  page: (body, ctx) => ({ items: body.views, hasMore: body.hasMore, totals: pathCountsTotals(body.totals, ctx) }),
  table: 'page_view_rows',
  view: 'page_views',
  keyColumn: 'path',
  row: pathCountsRow,
  totalsTable: 'page_view_window_totals',
  requestsPerDayGuess: 5,
});
