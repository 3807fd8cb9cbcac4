/**
 * `GET /v1/analytics/:projectId/assistant/threads/:threadId`: one conversation's transcript. A
 * thread id that is not a ULID is a 400; a thread of no assistant window of the project served
 * so far is a 404 (a thread id names no window, so the emulator knows threads once it served them).
 */
import type { FastifyInstance } from 'fastify';
import { ANALYTICS_ROUTE_PATHS } from '../analytics-dataset.js';
import { errorAnswer, type Answer, type EmulatorContext } from '../emulator-context.js';
import { serveRequest } from '../serve-request.js';
import { isUlid } from '../ulid.js';
import { spendAnalyticsBudget } from './analytics-route.js';

export function registerAssistantThreadRoute(app: FastifyInstance, ctx: EmulatorContext): void {
  app.get<{ Params: { projectId: string; threadId: string } }>(ANALYTICS_ROUTE_PATHS['assistant-threads'], (request, reply) =>
    serveRequest(ctx, 'assistant-threads', request, reply, () => threadAnswer(ctx, request.params.projectId, request.params.threadId)),
  );
}

function threadAnswer(ctx: EmulatorContext, projectId: string, threadId: string): Answer {
  const refused = spendAnalyticsBudget(ctx);
  if (refused) return refused;
  if (!isUlid(threadId)) return errorAnswer(400, 'Invalid thread ID', ['threadId must be a ULID']);
  const ref = ctx.windows.threadWindow(projectId, threadId);
  const thread = ref && ctx.windows.assistant(ctx.options, ref).threads.get(threadId);
  if (!thread) return errorAnswer(404, `Thread ${threadId} not found`);
  return { status: 200, body: structuredClone(thread) };
}
