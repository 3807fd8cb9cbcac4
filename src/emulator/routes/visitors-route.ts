/** `GET /v1/analytics/:projectId/visitors`: one page (by offset) of a window's unique visitors. */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../emulator-context.js';
import { pathCountFor } from '../emulator-options.js';
import { registerAnalyticsRoute } from './analytics-route.js';
import { TRAFFIC_QUERY, trafficAnswer } from './traffic-answer.js';

export function registerVisitorsRoute(app: FastifyInstance, ctx: EmulatorContext): void {
  registerAnalyticsRoute(app, ctx, 'visitors', TRAFFIC_QUERY, (query, ref) => {
    const window = ctx.windows.traffic('visitors', ctx.options, ref, pathCountFor(ctx.options, ref.projectId, ref.dateFrom, ref.dateTo));
    return trafficAnswer(ctx, 'visitors', window, query);
  });
}
