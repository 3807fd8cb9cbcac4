/** `GET /v1/analytics/:projectId/visitors`: one page of a window, against the organization's budget. */
import type { FastifyInstance } from 'fastify';
import { errorAnswer, rateLimitedAnswer, type Answer, type EmulatorContext } from '../emulator-context.js';
import { pathCountFor } from '../emulator-options.js';
import { serveRequest } from '../serve-request.js';
import { parseVisitorsQuery } from '../visitors-query.js';

/** All analytics endpoints of an organization share one budget; the emulator hosts one organization. */
const ORGANIZATION = 'org';

export function registerVisitorsRoute(app: FastifyInstance, ctx: EmulatorContext): void {
  app.get<{ Params: { projectId: string }; Querystring: Record<string, unknown> }>(
    '/v1/analytics/:projectId/visitors',
    (request, reply) =>
      serveRequest(ctx, 'visitors', request, reply, () => visitorsAnswer(ctx, request.params.projectId, request.query)),
  );
}

function visitorsAnswer(ctx: EmulatorContext, projectId: string, rawQuery: Record<string, unknown>): Answer {
  // The limit is enforced ahead of validation, as a gateway would: a bad request spends budget too.
  const decision = ctx.analyticsLimiter?.take(ORGANIZATION);
  if (decision && !decision.allowed) return rateLimitedAnswer(decision.retryAfterSeconds, 'Analytics rate limit exceeded');
  ctx.counters.analyticsBudgetUsed++;
  const parsed = parseVisitorsQuery(rawQuery);
  if (!parsed.ok) return errorAnswer(400, 'Invalid query parameters', parsed.details);
  const { dateFrom, dateTo, fromMs, toMs, limit, offset } = parsed.query;
  const window = ctx.windows.get(projectId, fromMs, toMs, pathCountFor(ctx.options, projectId, dateFrom, dateTo));
  const visitors = window.rows(offset, limit);
  return { status: 200, body: { totals: { ...window.totals }, visitors, hasMore: offset + visitors.length < window.size } };
}
