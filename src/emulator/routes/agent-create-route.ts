/**
 * `POST /v2/agent/:projectId/job` with `{ prompt }`: creates an agent job and starts its first run
 * (201, the job `active`). Creates count against the project's budget: the message budget by
 * default (the admin spec does not say whether the two share one; `createBudget: 'separate'`
 * gives creates their own). Every create performed is logged for tests, also when a fault then
 * drops its answer (`faults` on the `create` route, `when: 'after'`).
 */
import type { FastifyInstance } from 'fastify';
import { errorAnswer, rateLimitedAnswer, type Answer, type EmulatorContext } from '../emulator-context.js';
import { serveRequest } from '../serve-request.js';
import { parsePrompt } from './agent-prompt-body.js';

export function registerAgentCreateRoute(app: FastifyInstance, ctx: EmulatorContext): void {
  app.post<{ Params: { projectId: string }; Body: string | undefined }>('/v2/agent/:projectId/job', (request, reply) =>
    serveRequest(ctx, 'create', request, reply, () => createAnswer(ctx, request.params.projectId, request.body)),
  );
}

function createAnswer(ctx: EmulatorContext, projectId: string, rawBody: string | undefined): Answer {
  const decision = ctx.createLimiter?.take(projectId);
  if (decision && !decision.allowed) return rateLimitedAnswer(decision.retryAfterSeconds, 'Agent job rate limit exceeded');
  ctx.counters.createBudgetUsed++;
  const prompt = parsePrompt(rawBody);
  if (typeof prompt !== 'string') return errorAnswer(400, 'Invalid request body', [prompt.problem]);
  const { job, runMs } = ctx.jobs.createJob(projectId);
  ctx.creates.push({ projectId, jobId: job.id, prompt, receivedAt: ctx.options.now(), runMs });
  return { status: 201, body: job };
}
