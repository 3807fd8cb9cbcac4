/** `GET /v1/analytics/:projectId/assistant`: one page (by ULID cursor) of a window's assistant conversations. */
import type { FastifyInstance } from 'fastify';
import { cursorPage } from '../analytics-paging.js';
import type { EmulatorContext } from '../emulator-context.js';
import { invalidQuery, registerAnalyticsRoute } from './analytics-route.js';

export function registerAssistantRoute(app: FastifyInstance, ctx: EmulatorContext): void {
  const spec = { limit: { min: 1, max: 1000, default: 100, integer: false }, cursor: true };
  registerAnalyticsRoute(app, ctx, 'assistant', spec, (query, ref) => {
    const { conversations } = ctx.windows.assistant(ctx.options, ref);
    const result = cursorPage(ctx.options.seed, ctx.options, 'assistant', ref.projectId, query, conversations, ctx.options.now());
    if (!result.ok) return invalidQuery([result.problem]);
    const { page } = result;
    return { status: 200, body: { conversations: page.items, nextCursor: page.nextCursor, hasMore: page.hasMore } };
  });
}
