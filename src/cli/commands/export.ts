/** `mintpipe export`: enqueue window exports; `--wait` follows them to the end. */
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import type { EnqueuedWindow } from '../../export/enqueue.js';
import { parseGrain, parseProjectId, planWindows, type ExportWindow } from '../../export/windows.js';
import { QUEUE_NAMES } from '../../queue/queue-names.js';
import { loadContext, withRuntime } from '../command-context.js';

interface ExportFlags {
  project: string[];
  from?: string;
  to?: string;
  grain: string;
  wait?: boolean;
  format: string;
}

export function register(program: Command): void {
  program
    .command('export')
    .description('enqueue visitor exports of date windows (--to is exclusive)')
    .option('--project <id>', 'project id (repeat or comma-separate for several)', (v: string, prev: string[]) => [...prev, ...v.split(',')], [])
    .option('--from <YYYY-MM-DD>', 'first day of the range')
    .option('--to <YYYY-MM-DD>', 'day after the last day of the range (exclusive)')
    .option('--grain <grain>', 'windows: day, week (Mon–Mon), month, or range (one window)', 'day')
    .option('--wait', 'follow the windows until they finish; exit 0 only when all completed')
    .option('--format <format>', 'output: text or json', 'text')
    .action(async (flags: ExportFlags) => {
      process.exitCode = await runExport(flags);
    });
}

async function runExport(flags: ExportFlags): Promise<number> {
  const windows = parseWindows(flags);
  if (!['text', 'json'].includes(flags.format)) throw new UsageError(`--format: expected text or json, got "${flags.format}"`);
  const context = loadContext({ oneShot: true });
  return withRuntime(context, async (runtime) => {
    const { enqueueWindows } = await import('../../export/enqueue.js');
    const { waitForWindows } = await import('../wait-for-windows.js');
    const queue = runtime.queue(QUEUE_NAMES.export);
    // Fail before enqueuing when this process would have to do the work and cannot.
    if (flags.wait && !(await runtime.hasWorkers(QUEUE_NAMES.export))) runtime.client();
    const enqueued = await enqueueWindows(
      queue,
      windows.map((w) => ({ ...w, kind: 'manual' as const })),
    );
    reportEnqueued(enqueued, flags.format);
    if (!flags.wait) return 0;
    const started = await runtime.ensureWorkers([QUEUE_NAMES.export]);
    if (!started) process.stderr.write('using the running workers\n');
    const results = await waitForWindows(queue, enqueued);
    const failed = results.filter((r) => r.state !== 'completed');
    if (flags.format === 'json') {
      process.stdout.write(`${JSON.stringify({ windows: results, completed: results.length - failed.length, failed: failed.length }, null, 2)}\n`);
    } else {
      for (const r of failed) process.stderr.write(`failed ${r.projectId} ${r.dateFrom}..${r.dateTo}: ${r.error ?? r.state}\n`);
      const rows = results.reduce((sum, r) => sum + (r.rows ?? 0), 0);
      process.stdout.write(`${results.length - failed.length}/${results.length} windows complete, ${rows} rows\n`);
    }
    return failed.length === 0 ? 0 : 1;
  });
}

function parseWindows(flags: ExportFlags): ExportWindow[] {
  if (flags.project.length === 0) throw new UsageError('--project: required (a Mintlify project id)');
  if (!flags.from) throw new UsageError('--from: required (YYYY-MM-DD)');
  if (!flags.to) throw new UsageError('--to: required (YYYY-MM-DD, exclusive)');
  const grain = parseGrain(flags.grain);
  const projects = flags.project.map((p) => parseProjectId(p, '--project'));
  return projects.flatMap((projectId) => planWindows(projectId, flags.from!, flags.to!, grain));
}

function reportEnqueued(enqueued: EnqueuedWindow[], format: string): void {
  if (format === 'json') return;
  const kept = enqueued.filter((e) => !e.added).length;
  process.stdout.write(`enqueued ${enqueued.length - kept} window(s)${kept ? `, ${kept} already in flight` : ''}\n`);
  for (const e of enqueued) {
    process.stdout.write(`  ${e.window.projectId} ${e.window.dateFrom}..${e.window.dateTo}  job ${e.jobId}${e.added ? '' : ' (in flight)'}\n`);
  }
}
