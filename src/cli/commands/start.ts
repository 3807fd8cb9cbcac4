/**
 * `mintpipe start`: the whole stack in the foreground — workers, the nightly scheduler, the
 * dashboard — until Ctrl-C. With no MINTLIFY_API_KEY it runs against the built-in emulator and
 * exports recent days of demo data, so a new user sees rows arrive.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Queue } from 'bullmq';
import type { Command } from 'commander';
import type { MintpipeConfig } from '../../../config/index.js';
import { ConfigError } from '../../../config/config-error.js';
import { addDays, dayInTimeZone } from '../../export/dates.js';
import { projectDatasets } from '../../export/nightly-plan.js';
import { planWindows } from '../../export/windows.js';
import { ALL_QUEUES, QUEUE_NAMES } from '../../queue/queue-names.js';
import { describeRedisTarget, parseRedisUrl } from '../../../config/redis-url.js';
import { nightlySchedule } from '../../queue/schedules.js';
import { configuredEngine } from '../../warehouse/factory.js';
import { dashboardBanner } from '../dashboard-banner.js';
import { runUntilSignal } from '../run-until-signal.js';
import { abortOnStop, nextStopSignal } from '../stop-signals.js';
import { registerSecret } from '../../secrets/registered-secrets.js';

interface StartFlags {
  workers: boolean;
  scheduler: boolean;
  dashboard: boolean;
  demoDays: string;
}

const DEMO_PROJECT = 'demo-docs';

export function register(program: Command): void {
  program
    .command('start')
    .description('run workers, the nightly scheduler and the dashboard in the foreground (Ctrl-C stops)')
    .option('--no-workers', 'do not run workers here')
    .option('--no-scheduler', 'do not install the nightly schedule')
    .option('--no-dashboard', 'do not serve the dashboard')
    .option('--demo-days <n>', 'days of demo data exported when running against the emulator', '7')
    .action(async (flags: StartFlags) => {
      await start(flags);
    });
}

async function start(flags: StartFlags): Promise<void> {
  // A bad flag is refused before anything is claimed or started.
  const demoDays = parseDemoDays(flags.demoDays);
  // Loaded here, not at the top: `--help` and usage errors load only commander.
  const { loadContext } = await import('../command-context.js');
  const context = loadContext();
  // Listening from here: a stop signal while it starts is honoured once it has, not fatal.
  const stopped = nextStopSignal();
  // Before any banner, Redis or engine: a second start on a held data dir exits 1 at once.
  const { claimEmbeddedWarehouse } = await import('../warehouse-claim.js');
  claimEmbeddedWarehouse(context.config, 'start');
  let config = context.config;
  const [{ startEmulator }, { startDashboard }, { createMetrics }, { Runtime }] = await Promise.all([
    import('../../emulator/index.js'),
    import('../../ops/dashboard-server.js'),
    import('../../ops/metrics.js'),
    import('../runtime.js'),
  ]);
  const demo = !config.api.key;
  // A key of this start's own: the emulator listens on 127.0.0.1, where every local user can reach it.
  const demoKey = demo ? `mint_demo_${randomBytes(16).toString('hex')}` : undefined;
  registerSecret(demoKey);
  const emulator = demoKey ? await startEmulator({ port: 0, host: '127.0.0.1', apiKey: demoKey }) : undefined;
  // The first line says what this runs against: the API (never the key), the warehouse, Redis.
  if (emulator && demoKey) {
    process.stdout.write(`mintpipe: no MINTLIFY_API_KEY set — running against the built-in emulator at ${emulator.url} (synthetic data), ${describeStores(config)}\n`);
    config = demoConfig(config, emulator.url, demoKey);
  } else {
    const api = new URL(config.api.url);
    process.stdout.write(`mintpipe: running against ${api.origin}${api.pathname.replace(/\/$/, '')} with MINTLIFY_API_KEY, ${describeStores(config)}\n`);
  }
  const metrics = createMetrics();
  const runtime = await Runtime.open({
    config,
    logger: context.logger,
    stop: abortOnStop(stopped),
    onApiEvent: (event) => metrics.onApiEvent(event),
    exportObserver: metrics.exportObserver,
    promptObserver: metrics.promptObserver,
    builtInEmulator: demo,
  });
  // Closed last: jobs still in their grace period keep fetching from it.
  if (emulator) runtime.onClosed(() => emulator.close());
  try {
    // What `status`, the dashboard and a handing-over command see from other shells: where this
    // process's work goes. Published before its workers connect, so no command finds them unnamed.
    const { publishProcess } = await import('../../queue/installation-info.js');
    await publishProcess(runtime, 'start', { queues: flags.workers ? ALL_QUEUES : [], scheduler: flags.scheduler, builtInEmulator: demo });
    const exportQueue = runtime.queue(QUEUE_NAMES.export);
    if (flags.scheduler) await installNightly(exportQueue, config);
    if (flags.workers) {
      await runtime.startWorkers(ALL_QUEUES);
    }
    if (flags.dashboard) {
      const dashboard = await startDashboard({
        runtime,
        host: config.dashboard.host,
        port: config.dashboard.port,
        token: config.dashboard.token,
        hosts: config.dashboard.hosts,
        metrics,
        logger: context.logger,
        portRemedy: 'set MINTPIPE_DASHBOARD_PORT to a free port, or run start --no-dashboard',
      });
      runtime.onClose(() => dashboard.close());
      process.stdout.write(dashboardBanner(dashboard));
    }
    // The demo key is this process's own: windows no worker here runs would wait forever (or, left
    // in a shared Redis, reach a real worker that asks Mintlify for the demo project).
    if (demo && demoDays > 0 && !flags.workers) process.stdout.write('no demo export: --no-workers, and only this process can reach the built-in emulator\n');
    else if (demo && demoDays > 0) await exportDemoDays(exportQueue, config, demoDays);
    process.stdout.write('running (Ctrl-C to stop)\n');
  } catch (err) {
    await runtime.close();
    throw err;
  }
  await runUntilSignal(runtime, stopped);
}

/** Installs the nightly export schedule; a cron the scheduler refuses is a configuration error. */
async function installNightly(exportQueue: Queue, config: MintpipeConfig): Promise<void> {
  const { upsertSchedule } = await import('../../queue/schedules.js');
  try {
    await upsertSchedule(exportQueue, nightlySchedule(config.export.cron, config.export.timezone));
  } catch (err) {
    throw new ConfigError('MINTPIPE_SCHEDULE_CRON', `"${config.export.cron}" in ${config.export.timezone} is not a valid schedule: ${(err as Error).message}`);
  }
  process.stdout.write(
    `nightly export: "${config.export.cron}" ${config.export.timezone} for ${config.export.projects.length ? config.export.projects.join(', ') : 'no projects (set MINTPIPE_PROJECTS)'}\n`,
  );
}

/** `--demo-days`: digits only, 0 to 90 (`Number` would read "" as 0 and "0x10" as 16). */
function parseDemoDays(text: string): number {
  const days = /^\s*\d{1,3}\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!(days >= 0 && days <= 90)) throw new ConfigError('--demo-days', `expected a whole number of days from 0 to 90, got "${text}"`);
  return days;
}

/** Against the built-in emulator: exports the last `demoDays` days of the demo project, and says how to look. */
async function exportDemoDays(exportQueue: Queue, config: MintpipeConfig, demoDays: number): Promise<void> {
  const { enqueueWindows } = await import('../../export/enqueue.js');
  const today = dayInTimeZone(new Date(), 'UTC');
  const days = planWindows(DEMO_PROJECT, addDays(today, -demoDays), today, 'day');
  const datasets = projectDatasets(DEMO_PROJECT, config.export);
  const windows = datasets.flatMap((dataset) => days.map((w) => ({ ...w, dataset, kind: 'manual' as const })));
  const enqueued = await enqueueWindows(exportQueue, windows, { datasetOrder: config.export.datasets });
  process.stdout.write(`exporting ${days.length} demo days of project ${DEMO_PROJECT} (${datasets.join(', ')}: ${enqueued.length} windows); try:\n`);
  // Uniques are not additive: a day's uniques come from visitor_totals, never a sum over pages.
  process.stdout.write(`  npx mintpipe query "SELECT date_from AS day, human, ai, total AS uniques FROM visitor_totals WHERE date_to = date_from + 1 ORDER BY day"\n`);
  process.stdout.write(
    `  npx mintpipe query "SELECT path, total AS uniques FROM visitors WHERE date_to = date_from + 1 AND date_from = (SELECT max(date_from) FROM visitor_totals WHERE date_to = date_from + 1) ORDER BY uniques DESC LIMIT 10"\n`,
  );
}

/** Where the rows and the queues live, without credentials. */
function describeStores(config: MintpipeConfig): string {
  const warehouse = configuredEngine(config).title;
  let redis = `a private redis-server in ${join(config.dataDir, 'redis')}`;
  if (config.redis.url) {
    const target = parseRedisUrl(config.redis.url);
    redis = 'problem' in target ? 'Redis (REDIS_URL)' : `Redis at ${describeRedisTarget(target)} (REDIS_URL)`;
  }
  return `into ${warehouse}, queues in ${redis}`;
}

/** Points the API at the emulator and, unless configured, exports a demo project without pacing. */
function demoConfig(config: MintpipeConfig, url: string, key: string): MintpipeConfig {
  return {
    ...config,
    api: { ...config.api, url, key },
    analyticsRate: process.env.MINTPIPE_ANALYTICS_RATE ? config.analyticsRate : null,
    export: { ...config.export, projects: config.export.projects.length ? config.export.projects : [DEMO_PROJECT] },
  };
}
