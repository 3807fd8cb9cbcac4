/**
 * `mintpipe export`: enqueue window exports of one or more datasets; `--wait` follows them to the
 * end; `--dry-run` prints what the work costs instead; `export cancel` removes queued windows.
 */
import type { Command } from 'commander';
import { MintpipeError, UsageError } from '../../errors.js';
import type { EnqueuedWindow } from '../../export/enqueue.js';
import { QUEUE_NAMES } from '../../queue/queue-names.js';
import { collectProjects } from '../collect-projects.js';
import type { Runtime } from '../runtime.js';
import type { WaitOptions } from '../wait-for-windows.js';
import type { WindowFlags } from '../window-selection.js';
import { inertLine } from '../../inert-text.js';

interface ExportFlags extends WindowFlags {
  wait?: boolean;
  dryRun?: boolean;
  format: string;
}

export function register(program: Command): void {
  const command = program
    .command('export')
    .description('enqueue dataset exports of date windows (--to is exclusive)')
    .option('--project <id>', 'project id (repeat or comma-separate for several)', collectProjects, [])
    .option('--from <YYYY-MM-DD>', 'first day of the range')
    .option('--to <YYYY-MM-DD>', 'day after the last day of the range (exclusive)')
    .option('--grain <grain>', 'windows: day, week (Mon–Mon), month, or range (one window)', 'day')
    .option('--dataset <names>', 'datasets, comma-separated, or all (MINTPIPE_DATASETS); default visitors')
    .option('--wait', 'follow the windows until they finish; exit 0 only when all completed')
    .option('--dry-run', 'print what the work costs in requests and budget hours; enqueue nothing')
    .option('--format <format>', 'output: text or json', 'text')
    .action(async (flags: ExportFlags) => {
      process.exitCode = await runExport(flags);
    });
  command
    .command('cancel')
    .description('remove queued windows that have not started (in-flight ones finish)')
    .option('--project <id>', 'project id (repeat or comma-separate for several)', collectProjects, [])
    .option('--dataset <names>', 'only these datasets (comma-separated, or all)')
    .option('--from <YYYY-MM-DD>', 'only windows starting on or after this day')
    .option('--to <YYYY-MM-DD>', 'only windows ending on or before this day (exclusive end)')
    .option('--format <format>', 'output: text or json', 'text')
    .action(async (flags: WindowFlags & { format: string }, cancel: Command) => {
      const { runCancel } = await import('./export-cancel.js');
      process.exitCode = await runCancel(withParentFlags(flags, cancel, command));
    });
}

/**
 * `export --project P cancel` reads as `export cancel --project P`: the window flags given before
 * `cancel` (parsed by `export`, options being positional) count for it, after its own.
 */
function withParentFlags(own: WindowFlags & { format: string }, cancel: Command, parent: Command): WindowFlags & { format: string } {
  const before = parent.opts<ExportFlags>();
  const given = (name: string) => cancel.getOptionValueSource(name) !== 'default' && cancel.getOptionValueSource(name) !== undefined;
  return {
    ...before,
    ...own,
    project: [...before.project, ...own.project],
    dataset: own.dataset ?? before.dataset,
    from: own.from ?? before.from,
    to: own.to ?? before.to,
    format: given('format') ? own.format : before.format,
  };
}

async function runExport(flags: ExportFlags): Promise<number> {
  if (!['text', 'json'].includes(flags.format)) throw new UsageError(`--format: expected text or json, got "${flags.format}"`);
  // Loaded here, not at the top: `--help` and usage errors load only commander.
  const [{ loadContext, withRuntime }, { selectWindows }] = await Promise.all([import('../command-context.js'), import('../window-selection.js')]);
  // A dry run only reads: it needs no key.
  const context = loadContext({ oneShot: true, usesApi: !flags.dryRun });
  const windows = selectWindows(flags, context.config);
  if (flags.dryRun) {
    // Priced as plan prices it: at the pace of the running installation, whose workers would run it.
    const { printPlan, readRunning } = await import('./plan.js');
    return printPlan(windows, context, flags.format, (await readRunning(context)).rate);
  }
  return withRuntime(context, async (runtime) => {
    const { enqueueWindows } = await import('../../export/enqueue.js');
    const { waitForWindows } = await import('../wait-for-windows.js');
    const { checkUpstreamHandOver } = await import('../hand-over-check.js');
    await checkUpstreamHandOver(runtime.redis, runtime.config, QUEUE_NAMES.export);
    const queue = runtime.queue(QUEUE_NAMES.export);
    // Fail before enqueuing when this process would have to do the work and cannot.
    if (flags.wait && !(await runtime.hasWorkers(QUEUE_NAMES.export))) runtime.client();
    const enqueued = await enqueueWindows(
      queue,
      windows.map((w) => ({ ...w, kind: 'manual' as const })),
      { datasetOrder: context.config.export.datasets, upstream: await (await import('../shell-upstream.js')).shellUpstream(runtime) },
    );
    // With --wait and json, the one JSON document is the outcome printed at the end.
    if (!(flags.wait && flags.format === 'json')) reportEnqueued(enqueued, flags.format);
    if (!flags.wait) {
      // Enqueuing needs only Redis: say so when nothing will run the windows (silent when Redis will not tell).
      if (enqueued.some((e) => e.added)) await (await import('../worker-hint.js')).hintWithoutWorkers(runtime, QUEUE_NAMES.export, 'the windows run');
      return 0;
    }
    const started = await runtime.ensureWorkers([QUEUE_NAMES.export]);
    if (!started) process.stderr.write('using the running workers\n');
    const watch = started ? undefined : await followWatch(runtime, flags.grain);
    const { followWithDisplay } = await import('../follow-display.js');
    const results = await followWithDisplay(await stoppedFollowing(enqueued, flags.grain), (display) =>
      waitForWindows(queue, enqueued, { subscribe: (wake) => runtime.onJobEnded(wake), watch, display }),
    );
    const failed = results.filter((r) => r.status !== 'complete');
    if (flags.format === 'json') {
      process.stdout.write(`${JSON.stringify({ windows: results, completed: results.length - failed.length, failed: failed.length }, null, 2)}\n`);
    } else {
      for (const r of failed) process.stderr.write(`${inertLine(`failed ${r.dataset} ${r.projectId} ${r.dateFrom}..${r.dateTo}: ${r.error ?? r.status}`)}\n`);
      const rows = results.reduce((sum, r) => sum + (r.rows ?? 0), 0);
      process.stdout.write(`${results.length - failed.length}/${results.length} windows complete, ${rows} rows\n`);
    }
    return failed.length === 0 ? 0 : 1;
  });
}

/** What Ctrl-C on `export --wait` says: the windows stay queued, and how to follow them again. */
async function stoppedFollowing(enqueued: EnqueuedWindow[], grain: string): Promise<() => string> {
  const { exportCommand } = await import('../../export/export-command.js');
  return () => {
    const again = exportCommand(enqueued.map((e) => e.window), grain);
    return `stopped following ${enqueued.length} window(s); those not finished stay queued: workers (\`mintpipe start\` or \`mintpipe worker\`) carry them on, and \`${again}\` follows them again`;
  };
}

/** Gives up following when no worker has served the export queue for the grace period. */
async function followWatch(runtime: Runtime, grain: string): Promise<WaitOptions['watch']> {
  const [{ watchWorkers }, { exportCommand }] = await Promise.all([import('../../queue/worker-watch.js'), import('../../export/export-command.js')]);
  const graceMs = runtime.config.worker.followGraceMs;
  return {
    workers: watchWorkers({ countWorkers: () => workerCount(runtime), graceMs }),
    unserved: (left) =>
      new MintpipeError(
        `no worker has served the export queue for ${Math.round(graceMs / 1000)}s: ${left.length} window(s) left undone; resume with \`${exportCommand(left.map((e) => e.window), grain)}\` (or start \`mintpipe worker\`)`,
      ),
  };
}

async function workerCount(runtime: Runtime): Promise<number | undefined> {
  const connected = await runtime.workersAlive(QUEUE_NAMES.export);
  return connected === undefined ? undefined : Number(connected);
}

function reportEnqueued(enqueued: EnqueuedWindow[], format: string): void {
  const kept = enqueued.filter((e) => !e.added).length;
  if (format === 'json') {
    const windows = enqueued.map((e) => ({ ...e.window, jobId: e.jobId, added: e.added }));
    process.stdout.write(`${JSON.stringify({ enqueued: enqueued.length - kept, inFlight: kept, windows }, null, 2)}\n`);
    return;
  }
  process.stdout.write(`enqueued ${enqueued.length - kept} window(s)${kept ? `, ${kept} already in flight` : ''}\n`);
  for (const e of enqueued) {
    process.stdout.write(`${inertLine(`  ${e.window.dataset} ${e.window.projectId} ${e.window.dateFrom}..${e.window.dateTo}  job ${e.jobId}${e.added ? '' : ' (in flight)'}`)}\n`);
  }
}
