/** Unique visitors per page of a window: offset + limit while `hasMore`, site totals on every page. */
import { definePathCountsDataset } from './path-counts.js';

export const visitors = definePathCountsDataset({
  name: 'visitors',
  endpoint: 'visitors',
  table: 'visitor_rows',
  totalsTable: 'visitor_window_totals',
  view: 'visitors',
  requestsPerDayGuess: 5,
});
