/**
 * The dashboard server (fastify): the mintpipe page at `/`, its JSON at `/api/*`, Bull Board at
 * `/queues`, Prometheus text at `/metrics`, and `/healthz`. Loopback only and read-only unless a
 * token is set; with a token, everything but /healthz requires it (writes included). Only requests
 * naming a served host are answered (DNS rebinding). Nothing here can reach the API key: the server
 * only gets the queues, Redis and the warehouse (see OpsSource).
 */
import Fastify, { type FastifyError } from 'fastify';
import { MintpipeError, UsageError } from '../errors.js';
import { redactSecrets, type Logger } from '../logger.js';
import { registerBullBoard } from './bull-board.js';
import { registerDashboardApi } from './dashboard-api.js';
import { requireToken } from './dashboard-auth.js';
import { assertBindAllowed } from './dashboard-bind.js';
import { requireServedHost, servedHostNames } from './dashboard-hosts.js';
import { refuseWrites } from './dashboard-read-only.js';
import { checkHealth } from './health.js';
import { createMetrics, type Metrics } from './metrics.js';
import type { OpsSource } from './ops-source.js';
import { registerPageAssets } from './page-assets.js';

export interface DashboardOptions {
  /** Queues, Redis and warehouse to show; a `Runtime` fits. */
  runtime: OpsSource;
  /** Interface to listen on; anything but loopback requires `token`. @default from config: 127.0.0.1 */
  host: string;
  /** Port; 0 picks a free one (the URL says which). @default from config: 3000 */
  port: number;
  /** Required on every route but /healthz when set (`MINTPIPE_DASHBOARD_TOKEN`); without it the dashboard only reads. @default undefined */
  token?: string;
  /** Host header names served besides localhost, 127.0.0.1, [::1] and `host` (`MINTPIPE_DASHBOARD_HOSTS`). @default [] */
  hosts?: readonly string[];
  /** The process's metrics, fed by its workers. @default a fresh registry (queue and warehouse gauges only) */
  metrics?: Metrics;
  logger: Logger;
}

export interface Dashboard {
  /** `http://host:port` as bound. */
  url: string;
  close(): Promise<void>;
}

function formatUrl(host: string, port: number): string {
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

/** HTTP status for an error reaching the top of a route. */
function statusFor(err: unknown): number {
  if (err instanceof UsageError) return 400;
  const status = (err as Partial<FastifyError>).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return status;
  // The warehouse or Redis could not answer (locked, down, refused): the dashboard itself is fine.
  if (err instanceof MintpipeError) return 503;
  return 500;
}

export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  const token = options.token?.trim() || undefined;
  assertBindAllowed(options.host, token);
  const logger = options.logger.child({ component: 'dashboard' });
  const metrics = options.metrics ?? createMetrics();
  const source = options.runtime;

  // No fastify request logging: a first visit carries ?token= in its URL. Failures are logged below.
  const app = Fastify({ logger: false, forceCloseConnections: true });
  app.setErrorHandler((err, request, reply) => {
    const status = statusFor(err);
    const message = redactSecrets((err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '');
    if (status >= 500) logger.warn({ event: 'dashboard_request_failed', route: request.routeOptions.url, status, err: { message } }, 'request failed');
    return reply.code(status).send({ error: message });
  });
  // Fastify's default 404 echoes the URL; say less.
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: 'not found' }));
  // Order matters: a foreign Host is refused before anything else, including the token check.
  requireServedHost(app, servedHostNames(options.host, options.hosts));
  if (token) requireToken(app, token);
  else refuseWrites(app);

  registerPageAssets(app);
  registerDashboardApi(app, source);
  app.get('/healthz', async (_request, reply) => {
    const report = await checkHealth(source);
    return reply.code(report.healthy ? 200 : 503).send(report.body);
  });
  app.get('/metrics', async (_request, reply) => {
    const text = await metrics.render(source);
    return reply.type(metrics.contentType).send(text);
  });
  await registerBullBoard(app, source, { readOnly: !token });

  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = formatUrl(options.host, port);
  logger.info({ event: 'dashboard_listening', url, token: token ? 'required' : 'none' }, 'dashboard listening');

  let closing: Promise<void> | undefined;
  return {
    url,
    close() {
      closing ??= app.close().then(() => logger.debug({ event: 'dashboard_closed' }, 'dashboard closed'));
      return closing;
    },
  };
}
