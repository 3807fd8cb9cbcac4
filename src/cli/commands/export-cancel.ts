/** `mintpipe export cancel`: remove queued windows of a backfill that have not started. */
import { parseDatasetList } from '../../datasets/index.js';
import { UsageError } from '../../errors.js';
import { parseDay } from '../../export/dates.js';
import { parseProjectId } from '../../export/windows.js';
import { QUEUE_NAMES } from '../../queue/queue-names.js';
import { loadContext, withRuntime } from '../command-context.js';
import type { WindowFlags } from '../window-selection.js';

export async function runCancel(flags: WindowFlags & { format: string }): Promise<number> {
  if (!['text', 'json'].includes(flags.format)) throw new UsageError(`--format: expected text or json, got "${flags.format}"`);
  if (flags.project.length === 0) throw new UsageError('--project: required (a Mintlify project id)');
  const projects = flags.project.map((p) => parseProjectId(p, '--project'));
  const from = flags.from === undefined ? undefined : parseDay(flags.from, '--from');
  const to = flags.to === undefined ? undefined : parseDay(flags.to, '--to');
  const context = loadContext({ oneShot: true });
  const datasets = flags.dataset === undefined ? undefined : parseDatasetList(flags.dataset, '--dataset', context.config.export.datasets);
  return withRuntime(context, async (runtime) => {
    const { cancelWindows } = await import('../../export/cancel-windows.js');
    const result = await cancelWindows(runtime.queue(QUEUE_NAMES.export), { projects, datasets, from, to });
    if (flags.format === 'json') {
      process.stdout.write(`${JSON.stringify({ removed: result.removed.length, inFlight: result.inFlight, windows: result.removed }, null, 2)}\n`);
    } else {
      process.stdout.write(`removed ${result.removed.length} queued window(s)${result.inFlight ? `; ${result.inFlight} in flight will finish` : ''}\n`);
      for (const w of result.removed) process.stdout.write(`  ${w.dataset} ${w.projectId} ${w.dateFrom}..${w.dateTo}\n`);
    }
    return 0;
  });
}
