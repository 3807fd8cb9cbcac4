/**
 * A window delayed because the request budget is spent says so to `export --wait`: its processor
 * records what it waits for in the job's progress (real queue, real worker, the emulator).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { windowProgress } from '../../src/cli/window-progress.js';
import { enqueueWindows } from '../../src/export/enqueue.js';
import { QUEUE_NAMES } from '../../src/queue/queues.js';
import { openExportStack, type ExportStack } from '../support/export-stack.js';
import { until } from '../support/wait.js';

let stack: ExportStack;
beforeAll(async () => {
  // One request an hour: the window's second page must wait for the budget.
  stack = await openExportStack({ env: { MINTPIPE_ANALYTICS_RATE: '1/1h' } });
});
afterAll(async () => {
  await stack?.close();
});

describe('a window waiting for the request budget', () => {
  it('is shown as waiting for the request budget, not as a guess between budget and retry', async () => {
    const queue = stack.queue(QUEUE_NAMES.export);
    const [enqueued] = await enqueueWindows(queue, [{ projectId: 'budget-600', dateFrom: '2026-10-01', dateTo: '2026-10-02', dataset: 'visitors', kind: 'manual' }]);
    const job = await until('the window to be delayed', async () => ((await queue.getJobState(enqueued!.jobId)) === 'delayed' ? queue.getJob(enqueued!.jobId) : undefined));
    expect(job!.progress).toMatchObject({ rows: 250, waitingFor: 'budget', attempt: 0 });
    expect(windowProgress('delayed', job!, Date.now()).state).toBe('waiting for the request budget');
    await job!.remove();
  }, 60_000);
});
