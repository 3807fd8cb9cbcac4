/**
 * The analytics route table: one GET per dataset of the registry, at its fixture's path. What
 * every analytics route shares: the organization budget (spent ahead of validation, as a gateway
 * would: a bad request costs budget too), parameter validation with the spec's 400 shape, and
 * the window the request names; the fixture answers.
 */
import type { FastifyInstance } from 'fastify';
import type { AnalyticsDataset, EmulatorDataset } from '../analytics-dataset.js';
import { parseAnalyticsQuery } from '../analytics-query.js';
import { ANALYTICS_DATASETS, EMULATOR_DATASETS } from '../datasets/index.js';
import { invalidQuery, rateLimitedAnswer, type Answer, type EmulatorContext } from '../emulator-context.js';
import { serveRequest } from '../serve-request.js';

/** All analytics endpoints of an organization share one budget; the emulator hosts one organization. */
const ORGANIZATION = 'org';

type Params = Record<string, string> & { projectId: string };

/** The fastify path of a dataset's operation. */
function analyticsRoutePath(dataset: AnalyticsDataset): string {
  return `/v1/analytics/:projectId/${EMULATOR_DATASETS[dataset].path}`;
}

export function registerAnalyticsRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  for (const name of ANALYTICS_DATASETS) {
    const fixture: EmulatorDataset = EMULATOR_DATASETS[name];
    app.get<{ Params: Params; Querystring: Record<string, unknown> }>(analyticsRoutePath(name), (request, reply) =>
      serveRequest(ctx, name, request, reply, () => spendAnalyticsBudget(ctx) ?? answer(ctx, fixture, request.params, request.query)),
    );
  }
}

function answer(ctx: EmulatorContext, fixture: EmulatorDataset, params: Params, raw: Record<string, unknown>): Answer {
  if (fixture.kind === 'lookup') return fixture.answer(ctx, params.projectId, params);
  const parsed = parseAnalyticsQuery(raw, fixture.query, ctx.options.now());
  if (!parsed.ok) return invalidQuery(parsed.details);
  const { dateFrom, dateTo, fromMs, toMs } = parsed.query;
  return fixture.answer(ctx, parsed.query, ctx.windows.ref(params.projectId, dateFrom, dateTo, fromMs, toMs, ctx.options.now()));
}

/** Takes one request from the organization budget; a 429 answer when it is spent. */
function spendAnalyticsBudget(ctx: EmulatorContext): Answer | undefined {
  const decision = ctx.analyticsLimiter?.take(ORGANIZATION);
  if (decision && !decision.allowed) return rateLimitedAnswer(decision.retryAfterSeconds, 'Analytics rate limit exceeded');
  ctx.counters.analyticsBudgetUsed++;
  return undefined;
}
