/**
 * `mintpipe dashboard`: the dashboard alone (page, Bull Board, /metrics, /healthz) until Ctrl-C,
 * for a deployment where workers and the scheduler run elsewhere on the same Redis and warehouse.
 */
import type { Command } from 'commander';
import { ConfigError } from '../../../config/config-error.js';
import { assertBindAllowed } from '../../ops/dashboard-bind.js';
import { dashboardBanner } from '../dashboard-banner.js';
import { runUntilSignal } from '../run-until-signal.js';
import { nextStopSignal } from '../stop-signals.js';

interface DashboardFlags {
  host?: string;
  port?: string;
}

export function register(program: Command): void {
  program
    .command('dashboard')
    .description('serve the dashboard, Bull Board, /metrics and /healthz until Ctrl-C')
    .option('--host <host>', 'interface to listen on (anything but loopback needs MINTPIPE_DASHBOARD_TOKEN); default MINTPIPE_DASHBOARD_HOST or 127.0.0.1')
    .option('--port <port>', 'port; default MINTPIPE_DASHBOARD_PORT or 3000')
    .action(async (flags: DashboardFlags) => {
      await serveDashboard(flags);
    });
}

function parsePort(text: string): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) > 65_535) throw new ConfigError('--port', `expected a port from 0 to 65535, got "${text}"`);
  return Number(text);
}

async function serveDashboard(flags: DashboardFlags): Promise<void> {
  // Loaded here, not at the top: `--help` and usage errors load only commander.
  const { loadContext } = await import('../command-context.js');
  const context = loadContext({ usesApi: false });
  // Listening from here: a stop signal while it starts is honoured once it has, not fatal.
  const stopped = nextStopSignal();
  const host = flags.host?.trim() || context.config.dashboard.host;
  const port = flags.port === undefined ? context.config.dashboard.port : parsePort(flags.port);
  // Refuse before bringing anything up.
  assertBindAllowed(host, context.config.dashboard.token, flags.host?.trim() ? '--host' : undefined);
  const [{ startDashboard }, { createMetrics }, { Runtime }] = await Promise.all([
    import('../../ops/dashboard-server.js'),
    import('../../ops/metrics.js'),
    import('../runtime.js'),
  ]);
  const metrics = createMetrics();
  const runtime = await Runtime.open({ config: context.config, logger: context.logger });
  try {
    const dashboard = await startDashboard({ runtime, host, port, token: context.config.dashboard.token, hosts: context.config.dashboard.hosts, metrics, logger: context.logger, portRemedy: 'give --port (or MINTPIPE_DASHBOARD_PORT) a free port', hostRemedy: 'give --host (or MINTPIPE_DASHBOARD_HOST) one of its addresses, such as 127.0.0.1' });
    runtime.onClose(() => dashboard.close());
    process.stdout.write(dashboardBanner(dashboard));
  } catch (err) {
    await runtime.close();
    throw err;
  }
  await runUntilSignal(runtime, stopped);
}
