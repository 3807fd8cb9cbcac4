/** `GET /v1/analytics/:projectId/searches`: one page (by cursor, until `nextCursor` is null) of a window's search terms. */
import type { FastifyInstance } from 'fastify';
import { cursorPage } from '../analytics-paging.js';
import type { EmulatorContext } from '../emulator-context.js';
import { invalidQuery, registerAnalyticsRoute } from './analytics-route.js';

export function registerSearchesRoute(app: FastifyInstance, ctx: EmulatorContext): void {
  const spec = { limit: { min: 1, max: 100, default: 50, integer: false }, cursor: true };
  registerAnalyticsRoute(app, ctx, 'searches', spec, (query, ref) => {
    const window = ctx.windows.searches(ctx.options, ref);
    const result = cursorPage(ctx.options.seed, ctx.options, 'searches', ref.projectId, query, window.searches, ctx.options.now());
    if (!result.ok) return invalidQuery([result.problem]);
    const { page } = result;
    // The spec's searches answer has no hasMore: the last page is the one whose nextCursor is null.
    return { status: 200, body: { searches: page.items, totalSearches: window.totalSearches, nextCursor: page.nextCursor } };
  });
}
