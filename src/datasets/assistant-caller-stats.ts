/** Assistant calls by caller (web, api, other) in a window: one call, one row. */
import type { z } from 'zod';
import { approximateCount } from './counts.js';
import { defineDataset, type Zod } from './dataset.js';

const schema = (z: Zod) => z.looseObject({ web: approximateCount(z), api: approximateCount(z), other: approximateCount(z), total: approximateCount(z) });
type Body = z.output<ReturnType<typeof schema>>;
const known = new Set(['web', 'api', 'other', 'total']);

export const assistantCallerStats = defineDataset<Body, Body>({
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
