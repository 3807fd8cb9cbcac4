/** `mintpipe worker`: workers only, until SIGINT, SIGTERM or SIGHUP. Scale out by running more. */
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { ALL_QUEUES, parseQueueNames, type QueueName } from '../../queue/queue-names.js';
import { runUntilSignal } from '../run-until-signal.js';
import { abortOnStop, nextStopSignal } from '../stop-signals.js';

export function register(program: Command): void {
  program
    .command('worker')
    .description('run workers for the queues (scale out by running more, sharing one REDIS_URL)')
    .option('--queues <names>', `comma-separated: ${ALL_QUEUES.join(', ')}`, ALL_QUEUES.join(','))
    .option('--metrics-port <port>', 'serve this worker\'s /metrics and /healthz on a port (MINTPIPE_METRICS_PORT)', (v: string) => {
      if (!/^\d+$/.test(v) || Number(v) > 65_535) throw new UsageError(`--metrics-port: expected a port number, got "${v}"`);
      return Number(v);
    })
    .action(async (flags: { queues: string; metricsPort?: number }) => {
      let names: QueueName[];
      try {
        names = parseQueueNames(flags.queues);
      } catch (err) {
        throw new UsageError(`--queues: ${(err as Error).message}; expected ${ALL_QUEUES.join(', ')}`);
      }
      if (names.length === 0) throw new UsageError(`--queues: no queue named; expected ${ALL_QUEUES.join(', ')}`);
      // Loaded here, not at the top: `--help` and usage errors load only commander.
      const { loadContext } = await import('../command-context.js');
      const context = loadContext();
      // Listening from here: a stop signal while it starts is honoured once it has, not fatal.
      const stopped = nextStopSignal();
      // Before Redis or the engine: a worker on a data dir held by a live start or worker exits 1 at once.
      const { claimEmbeddedWarehouse } = await import('../warehouse-claim.js');
      claimEmbeddedWarehouse(context.config, 'worker');
      const { Runtime } = await import('../runtime.js');
      const { createMetrics } = await import('../../ops/metrics.js');
      const metrics = createMetrics();
      const runtime = await Runtime.open({
        ...context,
        stop: abortOnStop(stopped),
        onApiEvent: (event) => metrics.onApiEvent(event),
        exportObserver: metrics.exportObserver,
        promptObserver: metrics.promptObserver,
      });
      try {
        // What `status`, the dashboard and a handing-over command see from other shells: where this
        // worker's work goes. Published before its workers connect, so no command finds them unnamed.
        const { publishProcess } = await import('../../queue/installation-info.js');
        await publishProcess(runtime, 'worker', { queues: names, scheduler: false });
        await runtime.startWorkers(names);
        const port = flags.metricsPort ?? context.config.metricsPort;
        if (port !== undefined) {
          const { startMetricsServer } = await import('../../ops/metrics-server.js');
          const server = await startMetricsServer({
            runtime,
            metrics,
            host: context.config.dashboard.host,
            port,
            token: context.config.dashboard.token,
            logger: context.logger,
            portRemedy: `give --metrics-port (or MINTPIPE_METRICS_PORT) a free port`,
          });
          runtime.onClose(() => server.close());
          process.stderr.write(`metrics: ${server.url}/metrics (Authorization: Bearer ${server.tokenFile === undefined ? 'MINTPIPE_DASHBOARD_TOKEN' : `the token in ${server.tokenFile}`})\n`);
        }
      } catch (err) {
        await runtime.close();
        throw err;
      }
      process.stderr.write(`mintpipe worker: ${names.join(', ')} (Ctrl-C to stop)\n`);
      await runUntilSignal(runtime, stopped);
    });
}
