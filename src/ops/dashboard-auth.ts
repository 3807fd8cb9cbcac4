/**
 * Token check of the dashboard and a worker's /metrics (always on: the user's token or the generated
 * one, dashboard-token.ts). Every route except /healthz needs the token: as `Authorization: Bearer <token>` (Prometheus, curl), or once as `?token=<token>` in a
 * browser, which sets a cookie and redirects to the same URL without it, so the token does not stay
 * in the address bar, history or Referer headers. The cookie holds a digest, never the token.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export const AUTH_COOKIE = 'mintpipe_dashboard';

/**
 * The cookie's name for `token`: a browser keeps cookies per host, not per port, so two dashboards on
 * one machine (two installations, two tokens) would otherwise overwrite each other's cookie.
 */
export function authCookieName(token: string): string {
  return `${AUTH_COOKIE}_${createHash('sha256').update(`mintpipe-dashboard-cookie:${token}`).digest('hex').slice(0, 12)}`;
}
const OPEN_PATHS = new Set(['/healthz']);

const TOKEN_REQUIRED = 'mintpipe dashboard: token required (open the URL with ?token=… once, or send Authorization: Bearer …)\n';
const WRONG_TOKEN = "mintpipe dashboard: wrong token: it is not this dashboard's (open the address start or dashboard printed, or send its token as Authorization: Bearer …)\n";

function digest(text: string): Buffer {
  return createHash('sha256').update(`mintpipe-dashboard:${text}`).digest();
}

function sameDigest(candidate: string | undefined, expected: Buffer): boolean {
  return candidate !== undefined && candidate !== '' && timingSafeEqual(digest(candidate), expected);
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Adds the token check to every route of `app` (registered before the routes). */
export function requireToken(app: FastifyInstance, token: string): void {
  const expected = digest(token);
  const cookieToken = digest(token).toString('hex');
  const expectedCookie = digest(cookieToken);
  const cookieName = authCookieName(token);

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const url = new URL(request.url, 'http://dashboard.invalid');
    if (OPEN_PATHS.has(url.pathname)) return;

    const bearer = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1]?.trim();
    if (sameDigest(bearer, expected)) return;
    if (sameDigest(cookieValue(request.headers.cookie, cookieName), expectedCookie)) return;

    const queryToken = url.searchParams.get('token') ?? undefined;
    if (sameDigest(queryToken, expected)) {
      reply.header('set-cookie', `${cookieName}=${cookieToken}; HttpOnly; SameSite=Strict; Path=/`);
      if (request.method !== 'GET') return;
      url.searchParams.delete('token');
      return reply.redirect(`${url.pathname}${url.search}`, 302);
    }
    // A token that was given but is not this one (an old tab, another installation's) is named as such.
    const given = bearer !== undefined || (queryToken !== undefined && queryToken !== '');
    return reply
      .code(401)
      .header('www-authenticate', 'Bearer realm="mintpipe dashboard"')
      .type('text/plain; charset=utf-8')
      .send(given ? WRONG_TOKEN : TOKEN_REQUIRED);
  });
}
