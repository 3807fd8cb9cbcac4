/** `GET /v1/analytics/:projectId/feedback`: one page (by cursor) of a window's feedback, filtered by source and status. */
import type { FastifyInstance } from 'fastify';
import { cursorPage } from '../analytics-paging.js';
import type { EmulatorContext } from '../emulator-context.js';
import { filterFeedback } from '../served-feedback.js';
import { invalidQuery, registerAnalyticsRoute } from './analytics-route.js';

export function registerFeedbackRoute(app: FastifyInstance, ctx: EmulatorContext): void {
  const spec = { limit: { min: 1, max: 100, default: 50, integer: false }, cursor: true, feedbackFilters: true };
  registerAnalyticsRoute(app, ctx, 'feedback', spec, (query, ref) => {
    const items = filterFeedback(ctx.windows.feedback(ctx.options, ref), query.filters);
    const result = cursorPage(ctx.options.seed, ctx.options, 'feedback', ref.projectId, query, items, ctx.options.now());
    if (!result.ok) return invalidQuery([result.problem]);
    const { page } = result;
    return { status: 200, body: { feedback: page.items, nextCursor: page.nextCursor, hasMore: page.hasMore } };
  });
}
