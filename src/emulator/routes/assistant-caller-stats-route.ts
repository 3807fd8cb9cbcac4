/** `GET /v1/analytics/:projectId/assistant/caller-stats`: a window's assistant queries by caller type, one call. */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../emulator-context.js';
import { registerAnalyticsRoute } from './analytics-route.js';

export function registerAssistantCallerStatsRoute(app: FastifyInstance, ctx: EmulatorContext): void {
  registerAnalyticsRoute(app, ctx, 'assistant-caller-stats', {}, (_query, ref) => ({
    status: 200,
    body: { ...ctx.windows.assistant(ctx.options, ref).callerStats },
  }));
}
