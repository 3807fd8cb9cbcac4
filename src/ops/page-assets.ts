/**
 * The dashboard page: static HTML, CSS and JS from ./page, read once at start and served from
 * memory. No build step and no CDN (the page must work on machines without internet).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

const ASSETS: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'dashboard.css': 'text/css; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
  'charts.js': 'text/javascript; charset=utf-8',
  'split-chart.js': 'text/javascript; charset=utf-8',
  'format.js': 'text/javascript; charset=utf-8',
  'fixes.js': 'text/javascript; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};

/** Only the page's own files, no inline script, nothing from elsewhere. */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

/** ./page next to this file (the sources, the image's dist/cli/page); from the built dist/cli/ of a checkout, the sources' copy. */
export function pageDirectory(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, 'page'), join(here, '..', '..', 'src', 'ops', 'page')];
  const found = candidates.find((dir) => existsSync(join(dir, 'index.html')));
  if (!found) throw new Error(`dashboard page not found (looked in ${candidates.join(', ')})`);
  return found;
}

export function registerPageAssets(app: FastifyInstance, directory: string = pageDirectory()): void {
  const files = new Map(Object.entries(ASSETS).map(([name, type]) => [name, { type, body: readFileSync(join(directory, name)) }]));
  const send = (name: string) => {
    const file = files.get(name);
    if (!file) throw new Error(`unknown asset ${name}`);
    return file;
  };
  app.get('/', async (_request, reply) => {
    const file = send('index.html');
    return reply.headers(PAGE_HEADERS).type(file.type).send(file.body);
  });
  app.get<{ Params: { name: string } }>('/assets/:name', async (request, reply) => {
    const file = files.get(request.params.name);
    if (!file || request.params.name === 'index.html') return reply.code(404).send({ error: 'not found' });
    return reply.headers(PAGE_HEADERS).type(file.type).send(file.body);
  });
}
