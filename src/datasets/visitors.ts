/** Unique visitors per page of a window: offset + limit while `hasMore`, site totals on every page. */
import { z } from 'zod';
import { humanAiTotal } from './counts.js';
import { defineDataset } from './dataset.js';
import { pathCountsRow, pathCountsTotals, type PathCounts } from './path-counts.js';

const schema = z.looseObject({
  totals: z.looseObject(humanAiTotal),
  visitors: z.array(z.looseObject({ path: z.string(), ...humanAiTotal })),
  hasMore: z.boolean(),
});

export const visitors = defineDataset<z.output<typeof schema>, PathCounts>({
  name: 'visitors',
  endpoint: 'visitors',
  pagination: { kind: 'offset', limit: 250 },
  schema,
  page: (body, ctx) => ({ items: body.visitors, hasMore: body.hasMore, totals: pathCountsTotals(body.totals, ctx) }),
  table: 'visitor_rows',
  view: 'visitors',
  keyColumn: 'path',
  row: pathCountsRow,
  totalsTable: 'visitor_window_totals',
  requestsPerDayGuess: 5,
});

