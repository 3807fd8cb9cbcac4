/** `GET /v1/analytics/:projectId/views`: one page (by offset) of a window's page views. */
import type { FastifyInstance } from 'fastify';
import { itemCountFor } from '../analytics-knobs.js';
import type { EmulatorContext } from '../emulator-context.js';
import { registerAnalyticsRoute } from './analytics-route.js';
import { TRAFFIC_QUERY, trafficAnswer } from './traffic-answer.js';

export function registerViewsRoute(app: FastifyInstance, ctx: EmulatorContext): void {
  registerAnalyticsRoute(app, ctx, 'views', TRAFFIC_QUERY, (query, ref) => {
    const window = ctx.windows.traffic('views', ctx.options, ref, itemCountFor(ctx.options, 'views', ref.projectId, ref.dateFrom, ref.dateTo));
    return trafficAnswer(ctx, 'views', window, query);
  });
}
