/**
 * `mintpipe plan`: what a range of export work costs before it is started — per dataset, the
 * fewest requests, an estimate from the pages of each project's last complete run of that dataset
 * (or a stated guess) and
 * the hours of the shared analytics budget it takes. Reads the warehouse when it can (directly,
 * or through a running installation), and estimates from defaults when it cannot.
 */
import type { Command } from 'commander';
import type { RateLimit } from '../../../config/index.js';
import type { DatasetName } from '../../datasets/index.js';
import { UsageError } from '../../errors.js';
import type { RunSample } from '../../export/plan-cost.js';
import type { ExportWindow } from '../../export/windows.js';
import { collectProjects } from '../collect-projects.js';
import type { CommandContext } from '../command-context.js';
import type { WindowFlags } from '../window-selection.js';

export function register(program: Command): void {
  program
    .command('plan')
    .description('what export work costs in requests and hours of the analytics budget (--to is exclusive)')
    .option('--from <YYYY-MM-DD>', 'first day of the range (required)')
    .option('--to <YYYY-MM-DD>', 'day after the last day of the range (exclusive; required)')
    .option('--grain <grain>', 'windows: day, week (Mon–Mon), month, or range (one window)', 'day')
    .option('--project <id>', "project id (repeat or comma-separate; default the running installation's projects, then MINTPIPE_PROJECTS)", collectProjects, [])
    .option('--dataset <names>', 'datasets, comma-separated, or all (MINTPIPE_DATASETS); default all')
    .option('--format <format>', 'output: text or json', 'text')
    .action(async (flags: WindowFlags & { format: string }) => {
      if (!['text', 'json'].includes(flags.format)) throw new UsageError(`--format: expected text or json, got "${flags.format}"`);
      // Loaded here, not at the top: `--help` and usage errors load only commander.
      const [{ loadContext }, { checkWindowFlags, selectWindows }] = await Promise.all([import('../command-context.js'), import('../window-selection.js')]);
      // The flags first: a usage error is said without reaching Redis.
      checkWindowFlags(flags);
      const context = loadContext({ oneShot: true, usesApi: false });
      const running = await readRunning(context);
      const projects = flags.project.length > 0 ? flags.project : running.projects.length > 0 ? running.projects : context.config.export.projects;
      if (projects.length === 0) throw new UsageError('--project: required (no running installation names projects, and MINTPIPE_PROJECTS is not set)');
      const windows = selectWindows({ ...flags, project: projects, dataset: flags.dataset ?? 'all' }, context.config);
      process.exitCode = await printPlan(windows, context, flags.format, running.rate);
    });
}

/**
 * The running installation, read once: refuses when it writes another warehouse than the one the
 * estimates would be read from, and gives its projects (the default of --project) and the budget
 * its export workers take from (the work would run there, at that pace).
 */
export async function readRunning(context: CommandContext): Promise<{ projects: string[]; rate: RateLimit | null }> {
  const { withRuntime } = await import('../command-context.js');
  const [{ budgetRate, readInstallation }, { checkWarehouse }] = await Promise.all([import('../../ops/installation-reads.js'), import('../hand-over-check.js')]);
  return withRuntime(context, async (runtime) => {
    await checkWarehouse(runtime.redis, runtime.config);
    const view = await readInstallation(runtime.redis, runtime.config.queuePrefix, runtime.config);
    if (!view.running) return { projects: [], rate: context.config.analyticsRate };
    return { projects: view.settings.projects, rate: budgetRate(view) };
  });
}

/** Prints what `windows` cost at `rate` (default this shell's budget). */
export async function printPlan(windows: ExportWindow[], context: CommandContext, format: string, rate = context.config.analyticsRate): Promise<number> {
  const { formatPlanCost, planCost } = await import('../../export/plan-cost.js');
  const samples = await lastRunSamples(context);
  const cost = planCost(windows, samples, rate);
  if (format === 'json') process.stdout.write(`${JSON.stringify(cost, null, 2)}\n`);
  else process.stdout.write(`${formatPlanCost(cost)}\n`);
  return 0;
}

// Pages, not requests: a run's requests include its retries, which say nothing of the next run.
const SAMPLES_SQL = `SELECT project_id, dataset, argMax(pages, finished_at) AS pages, argMax(dateDiff('day', date_from, date_to), finished_at) AS days
FROM export_runs WHERE status = 'complete' GROUP BY project_id, dataset`;

/** Each project's last complete run of each dataset, read wherever the warehouse is; none when it cannot be read. */
async function lastRunSamples(context: CommandContext): Promise<Map<string, RunSample>> {
  const { config, logger } = context;
  const { runSampleKey } = await import('../../export/plan-cost.js');
  const samples = new Map<string, RunSample>();
  let rows: Record<string, unknown>[] = [];
  try {
    const { openWarehouse, runQuery, WarehouseLockedError } = await import('../../warehouse/index.js');
    try {
      const warehouse = await openWarehouse({ ...config.clickhouse, dataDir: config.dataDir, logger });
      try {
        rows = (await runQuery(warehouse, SAMPLES_SQL)).rows;
      } finally {
        await warehouse.close();
      }
    } catch (err) {
      if (!(err instanceof WarehouseLockedError)) throw err;
      const { queryThroughGateway } = await import('../../warehouse/gateway-client.js');
      rows = (await queryThroughGateway(config.dataDir, SAMPLES_SQL))?.rows ?? [];
    }
  } catch (err) {
    logger.warn({ event: 'plan_without_history', err }, 'could not read past runs; estimating from defaults');
  }
  for (const row of rows) {
    samples.set(runSampleKey(String(row.project_id), row.dataset as DatasetName), { pages: Number(row.pages), days: Number(row.days) });
  }
  return samples;
}
