/** `GET /v2/agent/:projectId/job/:id`: the agent job as it is now, or 404. */
import type { FastifyInstance } from 'fastify';
import { errorAnswer, type EmulatorContext } from '../emulator-context.js';
import { serveRequest } from '../serve-request.js';

export function registerAgentJobRoute(app: FastifyInstance, ctx: EmulatorContext): void {
  app.get<{ Params: { projectId: string; id: string } }>('/v2/agent/:projectId/job/:id', (request, reply) =>
    serveRequest(ctx, 'job', request, reply, () => {
      const job = ctx.jobs.find(request.params.projectId, request.params.id);
      return job ? { status: 200, body: job } : errorAnswer(404, `Agent job ${request.params.id} not found`);
    }),
  );
}
