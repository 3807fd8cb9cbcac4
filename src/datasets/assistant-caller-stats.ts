/** Assistant calls by caller (web, api, other) in a window: one call, one row. */
import { z } from 'zod';
import { approximateCount } from './counts.js';
import { defineDataset } from './dataset.js';

const schema = z.looseObject({ web: approximateCount, api: approximateCount, other: approximateCount, total: approximateCount });
const known = new Set(['web', 'api', 'other', 'total']);

export const assistantCallerStats = defineDataset<z.output<typeof schema>, z.output<typeof schema>>({
  name: 'assistant-caller-stats',
  endpoint: 'assistant/caller-stats',
  pagination: { kind: 'single' },
  schema,
  page: (body) => ({ items: [body], hasMore: false }),
  table: 'assistant_caller_stats_rows',
  view: 'assistant_caller_stats',
  row: (it, ctx) => ({
    web: ctx.count('web', it.web),
    api: ctx.count('api', it.api),
    other: ctx.count('other', it.other),
    total: ctx.count('total', it.total),
    extra: ctx.extra(it, known),
  }),
});
