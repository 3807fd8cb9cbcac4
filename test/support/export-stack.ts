/**
 * The export preset of the test stack (test-stack.ts): the emulator, unpaced settings, in-process
 * export workers, and `exportWindows`, which runs windows to their end.
 */
import { enqueueWindows } from '../../src/export/enqueue.js';
import type { DatasetName } from '../../src/datasets/index.js';
import type { ProjectWindow, WindowKind } from '../../src/export/windows.js';
import type { StartEmulatorOptions } from '../../src/emulator/index.js';
import { QUEUE_NAMES, type QueueName } from '../../src/queue/queues.js';
import { openTestStack, type TestStack } from './test-stack.js';
import { UNPACED_ENV } from './test-env.js';

export { TEST_API_KEY, testEnv } from './test-env.js';

export type ExportStack = TestStack & {
  emulator: NonNullable<TestStack['emulator']>;
  /** Enqueues windows, runs them on the in-process workers, resolves when all finished. */
  /** Windows of `visitors` unless they name a dataset. */
  exportWindows(windows: Array<ProjectWindow & { dataset?: DatasetName }>, kind?: WindowKind): Promise<Array<{ state: string; failedReason?: string; returnvalue?: unknown }>>;
};

export async function openExportStack(
  options: { emulator?: StartEmulatorOptions; env?: Record<string, string>; dataDir?: string; /** @default ['export'] */ queues?: QueueName[] } = {},
): Promise<ExportStack> {
  const stack = await openTestStack({
    emulator: options.emulator ?? {},
    env: { ...UNPACED_ENV, ...options.env },
    dataDir: options.dataDir,
    workers: options.queues ?? [QUEUE_NAMES.export],
  });
  const queue = stack.queue(QUEUE_NAMES.export);
  return {
    ...stack,
    async exportWindows(windows, kind = 'manual') {
      const enqueued = await enqueueWindows(queue, windows.map((w) => ({ ...w, dataset: w.dataset ?? 'visitors', kind })));
      const results = [];
      for (const e of enqueued) {
        for (;;) {
          // The state first, then the job: a job read before it finished has no return value yet.
          const state = await queue.getJobState(e.jobId);
          const job = await queue.getJob(e.jobId);
          if (state === 'completed' || state === 'failed' || state === 'unknown' || !job) {
            results.push({ state, failedReason: job?.failedReason, returnvalue: job?.returnvalue });
            break;
          }
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      return results;
    },
  };
}
