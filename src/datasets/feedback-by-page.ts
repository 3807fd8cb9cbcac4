/**
 * Feedback counts per page: one call per window, no pagination. `hasMore: true` only says rows
 * were cut (no request can fetch the rest): the run completes with a `truncated` finding.
 */
import type { z } from 'zod';
import { approximateCount } from './counts.js';
import { defineDataset, type Zod } from './dataset.js';

const item = (z: Zod) =>
  z.looseObject({ path: z.string(), thumbsUp: approximateCount(z), thumbsDown: approximateCount(z), code: approximateCount(z), total: approximateCount(z) });
const schema = (z: Zod) => z.looseObject({ feedback: z.array(item(z)), hasMore: z.boolean() });
const known = new Set(['path', 'thumbsUp', 'thumbsDown', 'code', 'total']);

export const feedbackByPage = defineDataset<z.output<ReturnType<typeof schema>>, z.output<ReturnType<typeof item>>>({
  name: 'feedback-by-page',
  endpoint: 'feedback/by-page',
  pagination: { kind: 'single', limit: 100 },
  schema,
  page: (body) => ({ items: body.feedback, hasMore: body.hasMore }),
  table: 'feedback_by_page_rows',
  view: 'feedback_by_page',
  keyColumn: 'path',
  row: (it, ctx) => {
    const where = `path ${JSON.stringify(it.path)}`;
    return {
      path: it.path,
      thumbs_up: ctx.count(`${where} thumbsUp`, it.thumbsUp),
      thumbs_down: ctx.count(`${where} thumbsDown`, it.thumbsDown),
      code: ctx.count(`${where} code`, it.code),
      total: ctx.count(`${where} total`, it.total),
      extra: ctx.extra(it, known),
    };
  },
});
