/**
 * Without a token the user set (MINTPIPE_DASHBOARD_TOKEN) the dashboard only reads, also behind its
 * generated token: what a user gets by default is a view, and nothing a page on another site, or a
 * local process that found the token, can send may change a queue. Every method but GET and HEAD is refused (405) before routing
 * and before the body is read, so no write route of Bull Board (add, retry, pause, clean,
 * obliterate, …) or of anything added later can run. With the user's token, that token guards writes.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const READ_METHODS = new Set(['GET', 'HEAD']);

/** Refuses every request that could write (registered before the routes). */
export function refuseWrites(app: FastifyInstance): void {
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (READ_METHODS.has(request.method)) return;
    return reply
      .code(405)
      .header('allow', 'GET, HEAD')
      .send({ error: 'the dashboard is read-only without MINTPIPE_DASHBOARD_TOKEN' });
  });
}
