/**
 * `/metrics` (and `/healthz`) of a process that serves no dashboard, such as `mintpipe worker`. The
 * pipeline counters (pages, rows, API latency, retries, prompts) live in the process that does the
 * work, so in a scaled deployment Prometheus scrapes every worker. Queue and warehouse gauges are
 * the same from every process; by default they are left to the dashboard's /metrics. /metrics needs
 * the dashboard's token (MINTPIPE_DASHBOARD_TOKEN, or the data dir's generated one): another local
 * user must not read queue names, projects and counts from 127.0.0.1.
 */
import Fastify from 'fastify';
import type { Logger } from '../logger.js';
import { requireToken } from './dashboard-auth.js';
import { assertBindAllowed } from './dashboard-bind.js';
import { resolveDashboardToken } from './dashboard-token.js';
import { checkHealth } from './health.js';
import { DEFAULT_HOST_REMEDY, listenOn } from './listen-port.js';
import type { Metrics } from './metrics.js';
import type { OpsSource } from './ops-source.js';

export interface MetricsServerOptions {
  runtime: OpsSource;
  metrics: Metrics;
  /** Interface to listen on; anything but loopback requires `token`. */
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** The user's token, required as for the dashboard (`Authorization: Bearer …`). @default the data dir's generated token */
  token?: string;
  /** Also read queue and warehouse gauges here (when no dashboard runs). @default false */
  sharedGauges?: boolean;
  logger: Logger;
  /** What the user changes when the port is taken, in the error. @default set MINTPIPE_METRICS_PORT to a free port */
  portRemedy?: string;
  /** What the user changes when the host is no address of this machine. @default set MINTPIPE_DASHBOARD_HOST to one of this machine's addresses */
  hostRemedy?: string;
}

export interface MetricsServer {
  url: string;
  /** Where the generated token is kept; undefined with MINTPIPE_DASHBOARD_TOKEN. */
  tokenFile?: string;
  close(): Promise<void>;
}

export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  assertBindAllowed(options.host, options.token?.trim() || undefined);
  const token = resolveDashboardToken({ configured: options.token, dataDir: options.runtime.config.dataDir, logger: options.logger });
  const app = Fastify({ logger: false, forceCloseConnections: true });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: 'not found' }));
  requireToken(app, token.value);
  app.get('/metrics', async (_request, reply) => {
    const text = await options.metrics.render(options.runtime, { sharedGauges: options.sharedGauges ?? false });
    return reply.type(options.metrics.contentType).send(text);
  });
  app.get('/healthz', async (_request, reply) => {
    const report = await checkHealth(options.runtime);
    return reply.code(report.healthy ? 200 : 503).send(report.body);
  });
  await listenOn(app, { host: options.host, port: options.port }, 'the metrics server', {
    port: options.portRemedy ?? 'set MINTPIPE_METRICS_PORT to a free port',
    host: options.hostRemedy ?? DEFAULT_HOST_REMEDY,
  });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const shownHost = options.host.includes(':') && !options.host.startsWith('[') ? `[${options.host}]` : options.host;
  const url = `http://${shownHost}:${port}`;
  options.logger.info({ event: 'metrics_listening', url }, 'metrics listening');
  let closing: Promise<void> | undefined;
  return {
    url,
    ...(token.file === undefined ? {} : { tokenFile: token.file }),
    close() {
      closing ??= app.close();
      return closing;
    },
  };
}
