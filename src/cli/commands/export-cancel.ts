/**
 * `mintpipe export cancel`: remove the windows of a backfill that no worker runs and whose run
 * fetched nothing yet, and end the runs of those that were waiting for budget or a retry.
 */
import { parseDatasetList } from '../../datasets/index.js';
import { UsageError } from '../../errors.js';
import { parseDateRange } from '../../export/date-range.js';
import type { ExportJobData } from '../../export/enqueue.js';
import { parseProjectId } from '../../export/windows.js';
import { QUEUE_NAMES } from '../../queue/queue-names.js';
import { longRunningHolder } from '../../warehouse/embedded-lock.js';
import { configuredEngine, WarehouseLockedError } from '../../warehouse/index.js';
import { loadContext, withRuntime } from '../command-context.js';
import type { Runtime } from '../runtime.js';
import type { WindowFlags } from '../window-selection.js';

export async function runCancel(flags: WindowFlags & { format: string }): Promise<number> {
  if (!['text', 'json'].includes(flags.format)) throw new UsageError(`--format: expected text or json, got "${flags.format}"`);
  if (flags.project.length === 0) throw new UsageError('--project: required (a Mintlify project id)');
  const projects = flags.project.map((p) => parseProjectId(p, '--project'));
  // The range export takes, checked the same way (it filters windows by their start and end).
  const range = parseDateRange(flags.from, flags.to);
  const context = loadContext({ oneShot: true });
  const datasets = flags.dataset === undefined ? undefined : parseDatasetList(flags.dataset, '--dataset', context.config.export.datasets);
  return withRuntime(context, async (runtime) => {
    const { cancelWindows } = await import('../../export/cancel-windows.js');
    const result = await cancelWindows(runtime.queue(QUEUE_NAMES.export), { projects, datasets, from: range?.from, to: range?.to });
    const runsLeft = result.waiting.length > 0 ? await endRuns(runtime, result.waiting) : undefined;
    if (flags.format === 'json') {
      const summary = { removed: result.removed.length, cancelledWhileWaiting: result.waiting.length, inFlight: result.inFlight, windows: result.removed };
      process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    } else {
      const waiting = result.waiting.length ? `, ${result.waiting.length} of them cancelled while waiting for budget or a retry` : '';
      process.stdout.write(`removed ${result.removed.length} queued window(s)${waiting}${result.inFlight ? `; ${result.inFlight} in flight will finish` : ''}\n`);
      for (const w of result.removed) process.stdout.write(`  ${w.dataset} ${w.projectId} ${w.dateFrom}..${w.dateTo}${w.checkpoint ? ' (was waiting)' : ''}\n`);
    }
    if (runsLeft) process.stderr.write(`${runsLeft}\n`);
    return 0;
  });
}

/**
 * Ends the runs of the windows taken back while waiting. An embedded warehouse held by a running
 * start or worker cannot be written from here: that process marks them abandoned (no live job) on
 * its next look for leftover runs. Returns that notice, or undefined when the runs were ended.
 */
async function endRuns(runtime: Runtime, waiting: ExportJobData[]): Promise<string | undefined> {
  const later = (holder: string) =>
    `the runs of the ${waiting.length} window(s) cancelled while waiting stay \`running\` until ${holder} marks them abandoned (runs without a job)`;
  const dir = configuredEngine(runtime.config).exclusiveDir;
  const holder = dir === undefined ? undefined : longRunningHolder(dir);
  if (holder) return later(`${holder.command} pid ${holder.pid}`);
  const { endCancelledRuns } = await import('../../export/end-cancelled-runs.js');
  try {
    await endCancelledRuns(await runtime.warehouse(), waiting);
    return undefined;
  } catch (err) {
    if (!(err instanceof WarehouseLockedError)) throw err;
    return later('the next start or worker');
  }
}
