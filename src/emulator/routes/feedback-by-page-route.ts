/**
 * `GET /v1/analytics/:projectId/feedback/by-page`: feedback counts per page, one call. The top
 * `limit` pages by total; `hasMore` says the window has more pages than that (no way to get them).
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../emulator-context.js';
import { feedbackByPage, feedbackByPagePage, filterFeedback } from '../served-feedback.js';
import { registerAnalyticsRoute } from './analytics-route.js';

export function registerFeedbackByPageRoute(app: FastifyInstance, ctx: EmulatorContext): void {
  const spec = { limit: { min: 1, max: 100, default: 10, integer: false }, feedbackFilters: true };
  registerAnalyticsRoute(app, ctx, 'feedback-by-page', spec, (query, ref) => {
    const items = filterFeedback(ctx.windows.feedback(ctx.options, ref), query.filters);
    const ranked = feedbackByPage(ctx.options.seed, ctx.options, ref, items);
    const feedback = feedbackByPagePage(ctx.options.seed, ctx.options, ref, ranked, query.limit);
    return { status: 200, body: { feedback, hasMore: ranked.length > query.limit } };
  });
}
