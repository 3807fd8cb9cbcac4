/**
 * Host header check against DNS rebinding: a page on another site can point its own name at
 * 127.0.0.1 and then read the dashboard as "same origin", but its requests still carry its own
 * name in the Host header. The dashboard answers only to the names it serves: localhost,
 * 127.0.0.1, [::1], the address it binds, and `MINTPIPE_DASHBOARD_HOSTS`. Anything else gets 421
 * and no data, before the token check and every route.
 */
import { isIP } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** A name as a Host header carries it: lower case, IPv6 in brackets. */
function normalizeName(name: string): string {
  const lower = name.trim().toLowerCase();
  return isIP(lower) === 6 ? `[${lower}]` : lower;
}

/** The name part of a Host header (`localhost:3000` → `localhost`, `[::1]:3000` → `[::1]`); undefined when malformed. */
export function hostHeaderName(header: string | undefined): string | undefined {
  const value = header?.trim().toLowerCase();
  if (!value) return undefined;
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::\d{1,5})?$/.exec(value);
  return match?.[1];
}

/** Every name the dashboard answers to. */
export function servedHostNames(bindHost: string, extraHosts: readonly string[] = []): Set<string> {
  return new Set([...LOOPBACK_NAMES, normalizeName(bindHost), ...extraHosts.map(normalizeName)]);
}

/** Refuses (421) every request whose Host header is not one of `served` (registered before the routes). */
export function requireServedHost(app: FastifyInstance, served: ReadonlySet<string>): void {
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const name = hostHeaderName(request.headers.host);
    if (name !== undefined && served.has(name)) return;
    // The refused name is not echoed back: it is whatever the other site chose.
    return reply
      .code(421)
      .type('text/plain; charset=utf-8')
      .send('mintpipe dashboard: this host name is not served here (add it to MINTPIPE_DASHBOARD_HOSTS)\n');
  });
}
