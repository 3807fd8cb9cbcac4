/**
 * The dashboard server (fastify): the mintpipe page at `/`, its JSON at `/api/*`, Bull Board at
 * `/queues`, Prometheus text at `/metrics`, and `/healthz`. Everything but /healthz needs a token:
 * MINTPIPE_DASHBOARD_TOKEN, or the one generated in the data dir (dashboard-token.ts), so another
 * local user reaches nothing on 127.0.0.1. Writes (Bull Board's retry, pause, clean, …) are
 * allowed only with a token the user set; with the generated one the dashboard only reads, as it
 * did before it had one. Loopback only unless a token is set. Only requests naming a served host
 * are answered (DNS rebinding). Nothing here can reach the API key: the server only gets the
 * queues, Redis and the warehouse (see OpsSource).
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
import { resolveDashboardToken } from './dashboard-token.js';
import { checkHealth } from './health.js';
import { DEFAULT_HOST_REMEDY, listenOn } from './listen-port.js';
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
  /** The user's token (`MINTPIPE_DASHBOARD_TOKEN`): required on every route but /healthz, and allows writes. @default the data dir's generated token, read-only */
  token?: string;
  /** Host header names served besides localhost, 127.0.0.1, [::1] and `host` (`MINTPIPE_DASHBOARD_HOSTS`). @default [] */
  hosts?: readonly string[];
  /** The process's metrics, fed by its workers. @default a fresh registry (queue and warehouse gauges only) */
  metrics?: Metrics;
  /** The clock the API's "today" (daily ranges, lag, fixes) is read from. @default the system clock */
  now?: () => Date;
  logger: Logger;
  /** What the user changes when the port is taken, in the error. @default set MINTPIPE_DASHBOARD_PORT to a free port */
  portRemedy?: string;
  /** What the user changes when the host is no address of this machine. @default set MINTPIPE_DASHBOARD_HOST to one of this machine's addresses */
  hostRemedy?: string;
}

export interface Dashboard {
  /** `http://host:port` as bound. */
  url: string;
  /**
   * The address to open: `url/?token=…` with the generated token, `url/` with the user's own (they
   * have it, and a deployment's stdout may be collected). For the terminal only, never a log.
   */
  browserUrl: string;
  /** Where the generated token is kept; undefined with MINTPIPE_DASHBOARD_TOKEN. */
  tokenFile?: string;
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
  assertBindAllowed(options.host, options.token?.trim() || undefined);
  const logger = options.logger.child({ component: 'dashboard' });
  const token = resolveDashboardToken({ configured: options.token, dataDir: options.runtime.config.dataDir, logger });
  const writable = token.origin === 'setting';
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
  requireToken(app, token.value);
  if (!writable) refuseWrites(app);

  registerPageAssets(app);
  registerDashboardApi(app, source, options.now);
  app.get('/healthz', async (_request, reply) => {
    const report = await checkHealth(source);
    return reply.code(report.healthy ? 200 : 503).send(report.body);
  });
  app.get('/metrics', async (_request, reply) => {
    const text = await metrics.render(source);
    return reply.type(metrics.contentType).send(text);
  });
  await registerBullBoard(app, source, { readOnly: !writable });

  await listenOn(app, { host: options.host, port: options.port }, 'the dashboard', {
    port: options.portRemedy ?? 'set MINTPIPE_DASHBOARD_PORT to a free port',
    host: options.hostRemedy ?? DEFAULT_HOST_REMEDY,
  });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = formatUrl(options.host, port);
  logger.info({ event: 'dashboard_listening', url, token: token.origin, writable }, 'dashboard listening');

  let closing: Promise<void> | undefined;
  return {
    url,
    browserUrl: token.origin === 'generated' ? `${url}/?token=${token.value}` : `${url}/`,
    ...(token.file === undefined ? {} : { tokenFile: token.file }),
    close() {
      closing ??= app.close().then(() => logger.debug({ event: 'dashboard_closed' }, 'dashboard closed'));
      return closing;
    },
  };
}
