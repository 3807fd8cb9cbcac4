/** Following a batch to its end from the CLI: workers, a progress display, and the final report. */
import { MintpipeError } from '../errors.js';
import type { BatchStatus } from '../prompts/index.js';
import type { WaitOptions } from '../prompts/wait-for-batch.js';
import { QUEUE_NAMES } from '../queue/queue-names.js';
import { loadPromptsModules } from './prompts-modules.js';
import type { Runtime } from './runtime.js';
import { followWithDisplay } from './follow-display.js';

/**
 * Makes sure a worker serves the queue, then shows progress until the batch is final. A caller
 * that already made sure (`workersStarted`: whether it started them here) has said so already.
 */
export async function follow(runtime: Runtime, batchId: string, workersStarted?: boolean): Promise<BatchStatus> {
  const { progressLine, waitForBatch } = await loadPromptsModules();
  const started = workersStarted ?? (await ensurePromptWorkers(runtime));
  const watch = started ? undefined : await followWatch(runtime, batchId);
  const label = `batch ${batchId}`;
  const stopped = () =>
    `stopped following batch ${batchId}; it is kept: \`mintpipe prompts status ${batchId}\` shows where it stands, and workers (\`mintpipe start\` or \`mintpipe worker\`) carry it on`;
  return followWithDisplay(stopped, (display) =>
    waitForBatch(runtime.redis, runtime.config.queuePrefix, batchId, {
      watch,
      onProgress: (status) => {
        const done = status.done >= status.total;
        // Off a TTY the counts go into the display's summary, not a line each time one moves.
        display.update(label, { fraction: status.total ? status.done / status.total : 1, detail: progressLine(status), state: 'following', done });
      },
    }),
  );
}

/** Starts prompt workers here unless some serve the queue; says so when it hands over. True when it started them. */
export async function ensurePromptWorkers(runtime: Runtime): Promise<boolean> {
  const started = await runtime.ensureWorkers([QUEUE_NAMES.prompts]);
  if (!started) process.stderr.write('using the running workers\n');
  return started;
}

/** Gives up following when no worker has served the prompts queue for the grace period. */
async function followWatch(runtime: Runtime, batchId: string): Promise<WaitOptions['watch']> {
  const { watchWorkers } = await import('../queue/worker-watch.js');
  const graceMs = runtime.config.worker.followGraceMs;
  const countWorkers = async () => {
    const connected = await runtime.workersAlive(QUEUE_NAMES.prompts);
    return connected === undefined ? undefined : Number(connected);
  };
  return {
    workers: watchWorkers({ countWorkers, graceMs }),
    unserved: (status) => {
      // Sent ones are not to be sent again: say so, or a user may force the file in a second time.
      const sent = status.byStatus.sending + status.byStatus.polling + status.byStatus.ambiguous;
      return new MintpipeError(
        `no worker has served the prompts queue for ${Math.round(graceMs / 1000)}s: ${status.total - status.done - status.held} prompt(s) of batch ${batchId} not final yet${sent ? ` (${sent} of them sent, awaiting their outcome: never send them again)` : ''}; resume with \`mintpipe prompts recover ${batchId} --wait\` (or start \`mintpipe worker\`)`,
      );
    },
  };
}

export async function report(status: BatchStatus, format: string, header: Record<string, unknown>): Promise<void> {
  const { formatBatchReport } = await loadPromptsModules();
  if (format === 'json') {
    writeJson({ ...header, batchId: status.batchId, total: status.total, byStatus: status.byStatus, prompts: status.prompts });
  } else {
    process.stdout.write(`${formatBatchReport(status)}\n`);
  }
}

export function writeJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
