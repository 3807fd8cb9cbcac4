/**
 * Search terms of a window: cursor while `nextCursor` is not null (the endpoint has no `hasMore`),
 * ordered by hits descending; `totalSearches` is repeated on every page.
 */
import type { z } from 'zod';
import { approximateCount } from './counts.js';
import { defineDataset, type Zod } from './dataset.js';

const item = (z: Zod) =>
  z.looseObject({
    searchQuery: z.string(),
    hits: approximateCount(z),
    ctr: z.number(),
    topClickedPage: z.string().nullable(),
    lastSearchedAt: z.string(),
  });
const schema = (z: Zod) => z.looseObject({ searches: z.array(item(z)), totalSearches: approximateCount(z), nextCursor: z.string().nullable() });
const known = new Set(['searchQuery', 'hits', 'ctr', 'topClickedPage', 'lastSearchedAt']);

export const searches = defineDataset<z.output<ReturnType<typeof schema>>, z.output<ReturnType<typeof item>>>({
  name: 'searches',
  endpoint: 'searches',
  pagination: { kind: 'cursor', limit: 100, until: 'nullCursor' },
  schema,
  // An empty cursor names no page (the first page is the one asked without a cursor): the end, like null.
  page: (body, ctx) => ({
    items: body.searches,
    hasMore: Boolean(body.nextCursor),
    nextCursor: body.nextCursor || null,
    totals: { total_searches: ctx.count('totalSearches', body.totalSearches) },
  }),
  table: 'search_rows',
  view: 'searches',
  keyColumn: 'search_query',
  row: (it, ctx) => ({
    search_query: it.searchQuery,
    hits: ctx.count(`search ${JSON.stringify(it.searchQuery)} hits`, it.hits),
    ctr: it.ctr,
    top_clicked_page: it.topClickedPage,
    last_searched_at: ctx.timestamp(`search ${JSON.stringify(it.searchQuery)} lastSearchedAt`, it.lastSearchedAt),
    extra: ctx.extra(it, known),
  }),
  totalsTable: 'search_window_totals',
  requestsPerDayGuess: 3,
});
