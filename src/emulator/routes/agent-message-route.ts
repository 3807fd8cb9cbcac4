/**
 * `POST /v2/agent/:projectId/job/:id/message` with `{ prompt }`: starts a run of the agent job and
 * returns it (`active`). Archived jobs refuse (400), unknown jobs are 404, and each project has
 * its own message budget. Every accepted message is logged for tests.
 */
import type { FastifyInstance } from 'fastify';
import { errorAnswer, rateLimitedAnswer, type Answer, type EmulatorContext } from '../emulator-context.js';
import { serveRequest } from '../serve-request.js';
import { parsePrompt } from './agent-prompt-body.js';

interface JobParams {
  projectId: string;
  id: string;
}

export function registerAgentMessageRoute(app: FastifyInstance, ctx: EmulatorContext): void {
  app.post<{ Params: JobParams; Body: string | undefined }>('/v2/agent/:projectId/job/:id/message', (request, reply) =>
    serveRequest(ctx, 'message', request, reply, () => messageAnswer(ctx, request.params, request.body)),
  );
}

function messageAnswer(ctx: EmulatorContext, { projectId, id }: JobParams, rawBody: string | undefined): Answer {
  const decision = ctx.messageLimiter?.take(projectId);
  if (decision && !decision.allowed) return rateLimitedAnswer(decision.retryAfterSeconds, 'Message rate limit exceeded');
  ctx.counters.messageBudgetUsed++;
  const prompt = parsePrompt(rawBody);
  if (typeof prompt !== 'string') return errorAnswer(400, 'Invalid request body', [prompt.problem]);
  const job = ctx.jobs.find(projectId, id);
  if (!job) return errorAnswer(404, `Agent job ${id} not found`);
  if (job.status === 'archived') return errorAnswer(400, `Agent job ${id} is archived and cannot receive messages`);
  const run = ctx.jobs.startRun(projectId, id);
  ctx.messages.push({ projectId, jobId: id, prompt, receivedAt: ctx.options.now(), statusBefore: run.statusBefore, runMs: run.runMs });
  return { status: 200, body: run.job };
}
