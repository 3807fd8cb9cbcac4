/**
 * `export cancel` on windows that wait for the budget: a worker started their runs, the budget
 * stopped them before their first page, and they sit delayed. Cancelling takes their jobs out of
 * the queue and ends their runs `cancelled`; a run whose rows reached the warehouse after all is
 * kept `abandoned`, for the window's next export to resume.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from 'bullmq';
import { cancelWindows } from '../../src/export/cancel-windows.js';
import { endCancelledRuns } from '../../src/export/end-cancelled-runs.js';
import { enqueueWindows, type ExportJobData } from '../../src/export/enqueue.js';
import { QUEUE_NAMES } from '../../src/queue/queues.js';
import { insertRowBatch } from '../../src/warehouse/dataset-rows.js';
import { latestResumableRun, selectRows } from '../../src/warehouse/index.js';
import { openExportStack, type ExportStack } from '../support/export-stack.js';
import { until } from '../support/wait.js';

let stack: ExportStack;
beforeAll(async () => {
  // One request an hour: the first window takes it, the others wait for the budget.
  stack = await openExportStack({ env: { MINTPIPE_ANALYTICS_RATE: '1/1h' } });
});
afterAll(async () => {
  await stack?.close();
});

async function runOf(runId: string): Promise<{ status: string; rows: number; requests: number } | undefined> {
  const [row] = await selectRows<{ status: string; rows: number | string; requests: number | string }>(
    stack.warehouse,
    'SELECT status, rows, requests FROM export_runs WHERE run_id = {runId:String}',
    { runId },
  );
  return row ? { status: row.status, rows: Number(row.rows), requests: Number(row.requests) } : undefined;
}

const day = (projectId: string, dateFrom: string, dateTo: string) => ({ dataset: 'visitors' as const, projectId, dateFrom, dateTo, kind: 'manual' as const });

/** Each job once it is delayed waiting for the budget with its run started, or finished. */
async function settled(ids: string[]): Promise<Array<Job<ExportJobData>>> {
  const queue = stack.queue(QUEUE_NAMES.export);
  return until('every window to wait for the budget or finish', async () => {
    const jobs = await Promise.all(ids.map(async (id) => ({ job: (await queue.getJob(id)) as Job<ExportJobData>, state: await queue.getJobState(id) })));
    const done = jobs.every(({ job, state }) => state === 'completed' || state === 'failed' || (state === 'delayed' && job.data.checkpoint !== undefined));
    return done ? jobs.map((j) => j.job) : undefined;
  });
}

describe('export cancel of windows waiting for the budget', () => {
  it('removes the windows whose run fetched nothing and ends their runs cancelled', async () => {
    const queue = stack.queue(QUEUE_NAMES.export);
    const enqueued = await enqueueWindows(queue, [day('wait-docs', '2026-09-01', '2026-09-02'), day('wait-docs', '2026-09-02', '2026-09-03'), day('wait-docs', '2026-09-03', '2026-09-04')]);
    const jobs = await settled(enqueued.map((e) => e.jobId));
    const idle = jobs.filter((j) => j.data.checkpoint?.pages === 0);
    // One window got the hour's request; at least the other two waited without a page.
    expect(idle.length).toBeGreaterThanOrEqual(2);
    for (const job of idle) expect(await runOf(job.data.checkpoint!.runId)).toMatchObject({ status: 'running', requests: 0 });

    const result = await cancelWindows(queue, { projects: ['wait-docs'] });
    expect(result.waiting.map((w) => w.dateFrom).sort()).toEqual(idle.map((j) => j.data.dateFrom).sort());
    for (const job of idle) expect(await queue.getJob(job.id!)).toBeUndefined();

    expect(await endCancelledRuns(stack.warehouse, result.waiting)).toEqual({ cancelled: idle.length, abandoned: 0 });
    for (const job of idle) expect(await runOf(job.data.checkpoint!.runId)).toMatchObject({ status: 'cancelled', rows: 0 });
  });

  it('keeps a cancelled run abandoned, for a resume, when its rows reached the warehouse after the checkpoint was saved', async () => {
    const queue = stack.queue(QUEUE_NAMES.export);
    const [first, second] = await enqueueWindows(queue, [day('lag-docs', '2026-09-01', '2026-09-02'), day('lag-docs', '2026-09-02', '2026-09-03')]);
    const jobs = await settled([first!.jobId, second!.jobId]);
    const idle = jobs.find((j) => j.data.checkpoint?.pages === 0)!;
    const cp = idle.data.checkpoint!;
    // A worker killed between storing a batch and saving the checkpoint leaves the job behind the warehouse.
    const window = { dataset: 'visitors', projectId: 'lag-docs', dateFrom: idle.data.dateFrom, dateTo: idle.data.dateTo };
    const rows = [{ path: '/a', human: 1, ai: 0, total: 1 }, { path: '/b', human: 2, ai: 0, total: 2 }];
    await insertRowBatch(stack.warehouse, { ...window, runId: cp.runId, table: 'visitor_rows', batchOffset: 0, batchEnd: 2, batchCursor: '', rows });

    const result = await cancelWindows(queue, { projects: ['lag-docs'], from: idle.data.dateFrom, to: idle.data.dateTo });
    expect(result.waiting).toHaveLength(1);
    expect(await endCancelledRuns(stack.warehouse, result.waiting)).toEqual({ cancelled: 0, abandoned: 1 });
    expect(await runOf(cp.runId)).toMatchObject({ status: 'abandoned', rows: 2 });
    expect((await latestResumableRun(stack.warehouse, window))?.runId).toBe(cp.runId);
  });
});
