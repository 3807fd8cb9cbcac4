/** Page views per page of a window: like visitors (offset + limit, totals on every page). */
import { definePathCountsDataset } from './path-counts.js';

export const views = definePathCountsDataset({
  name: 'views',
  endpoint: 'views',
  table: 'page_view_rows',
  totalsTable: 'page_view_window_totals',
  view: 'page_views',
  requestsPerDayGuess: 5,
});
