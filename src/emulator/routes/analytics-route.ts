/**
 * What every analytics route shares: the organization budget (spent ahead of validation, as a
 * gateway would: a bad request costs budget too), parameter validation with the spec's 400 shape,
 * and the window the request names.
 */
import type { FastifyInstance } from 'fastify';
import { ANALYTICS_ROUTE_PATHS, type AnalyticsDataset } from '../analytics-dataset.js';
import { parseAnalyticsQuery, type AnalyticsQuery, type QuerySpec } from '../analytics-query.js';
import { errorAnswer, rateLimitedAnswer, type Answer, type EmulatorContext } from '../emulator-context.js';
import { serveRequest } from '../serve-request.js';
import type { WindowRef } from '../window-ref.js';

/** All analytics endpoints of an organization share one budget; the emulator hosts one organization. */
const ORGANIZATION = 'org';

type Params = Record<string, string>;

/** Takes one request from the organization budget; a 429 answer when it is spent. */
export function spendAnalyticsBudget(ctx: EmulatorContext): Answer | undefined {
  const decision = ctx.analyticsLimiter?.take(ORGANIZATION);
  if (decision && !decision.allowed) return rateLimitedAnswer(decision.retryAfterSeconds, 'Analytics rate limit exceeded');
  ctx.counters.analyticsBudgetUsed++;
  return undefined;
}

/** Registers GET `dataset` with its query spec; `respond` gets a valid query and its window. */
export function registerAnalyticsRoute(
  app: FastifyInstance,
  ctx: EmulatorContext,
  dataset: AnalyticsDataset,
  spec: QuerySpec,
  respond: (query: AnalyticsQuery, ref: WindowRef) => Answer,
): void {
  app.get<{ Params: Params; Querystring: Record<string, unknown> }>(ANALYTICS_ROUTE_PATHS[dataset], (request, reply) =>
    serveRequest(ctx, dataset, request, reply, () => {
      const refused = spendAnalyticsBudget(ctx);
      if (refused) return refused;
      const parsed = parseAnalyticsQuery(request.query, spec, ctx.options.now());
      if (!parsed.ok) return invalidQuery(parsed.details);
      const { dateFrom, dateTo, fromMs, toMs } = parsed.query;
      return respond(parsed.query, ctx.windows.ref(request.params.projectId!, dateFrom, dateTo, fromMs, toMs));
    }),
  );
}

export function invalidQuery(details: string[]): Answer {
  return errorAnswer(400, 'Invalid query parameters', details);
}
