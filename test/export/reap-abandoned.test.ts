import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reapAbandonedRuns } from '../../src/export/reap-abandoned.js';
import { QUEUE_NAMES } from '../../src/queue/queues.js';
import { insertRowBatch } from '../../src/warehouse/dataset-rows.js';
import { latestResumableRun, pruneSuperseded, recordRunEvent, selectRows, storedRows } from '../../src/warehouse/index.js';
import { openExportStack, type ExportStack } from '../support/export-stack.js';
import { until } from '../support/wait.js';

let stack: ExportStack;
beforeAll(async () => {
  stack = await openExportStack();
});
afterAll(async () => {
  await stack?.close();
});

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** A run left `running` since `startedAt` (its one event written then), with `rows` staged rows of visitors. */
async function leftRunning(runId: string, projectId: string, startedAt: Date, rows: number) {
  const window = { dataset: 'visitors', projectId, dateFrom: '2026-09-01', dateTo: '2026-09-02' };
  await recordRunEvent(stack.warehouse, { runId, ...window, kind: 'manual', status: 'running', startedAt, eventAt: startedAt });
  if (rows > 0) {
    await insertRowBatch(stack.warehouse, {
      ...window,
      runId,
      table: 'visitor_rows',
      batchOffset: 0,
      batchEnd: rows,
      batchCursor: '',
      rows: Array.from({ length: rows }, (_, i) => ({ path: `/page-${i}`, human: 1, ai: 0, total: 1 })),
    });
  }
  return window;
}

async function status(runId: string): Promise<{ status: string; rows: number; error: string } | undefined> {
  const [row] = await selectRows<{ status: string; rows: number | string; error: string }>(
    stack.warehouse,
    'SELECT status, rows, error FROM export_runs WHERE run_id = {runId:String}',
    { runId },
  );
  return row ? { status: row.status, rows: Number(row.rows), error: row.error } : undefined;
}

describe('runs left running with no live job', () => {
  it('marks an orphan run abandoned after the idle time, keeps its rows for a resume, and prunes them once a later run of the window completes', async () => {
    const hourAgo = new Date(Date.now() - HOUR_MS);
    const orphanWindow = await leftRunning('visitors_orphan_a', 'reap-docs', hourAgo, 3);
    // Same age, but its job is still queued (delayed): it is alive.
    await leftRunning('visitors_live_a', 'reap-live', hourAgo, 2);
    const queue = stack.runtime.queue(QUEUE_NAMES.export);
    await queue.add('window', { dataset: 'visitors', projectId: 'reap-live', dateFrom: '2026-09-01', dateTo: '2026-09-02', kind: 'manual', runId: 'visitors_live_a' }, { jobId: 'visitors_live_a', delay: HOUR_MS });
    // Started a minute ago: too young to judge, whatever Redis says.
    await leftRunning('visitors_young_a', 'reap-young', new Date(Date.now() - 60_000), 1);

    const { reaped } = await reapAbandonedRuns({ warehouse: stack.warehouse, queue });
    expect(reaped.map((r) => r.runId)).toEqual(['visitors_orphan_a']);
    expect(await status('visitors_orphan_a')).toMatchObject({ status: 'abandoned', rows: 3 });
    expect((await status('visitors_orphan_a'))!.error).toMatch(/^its job is gone from Redis \(lost\?\); its 3 staged rows are kept for a resume$/);
    expect((await status('visitors_live_a'))!.status).toBe('running');
    expect((await status('visitors_young_a'))!.status).toBe('running');

    // Pruning leaves an abandoned run's rows, and the window knows which run to resume.
    await pruneSuperseded(stack.warehouse, ['visitor_rows']);
    expect(await storedRows(stack.warehouse, 'visitor_rows', 'visitors_orphan_a')).toBe(3);
    expect((await latestResumableRun(stack.warehouse, orphanWindow))?.runId).toBe('visitors_orphan_a');

    // The window enqueued again resumes the abandoned run (after its 3 stored rows) and completes
    // it; then nothing is left to resume and the run is complete, not reaped again.
    const [result] = await stack.exportWindows([{ projectId: 'reap-docs', dateFrom: '2026-09-01', dateTo: '2026-09-02' }]);
    expect(result?.state).toBe('completed');
    expect((result?.returnvalue as { runId: string }).runId).toBe('visitors_orphan_a');
    expect((await status('visitors_orphan_a'))!.status).toBe('complete');
    expect(await latestResumableRun(stack.warehouse, orphanWindow)).toBeNull();
    expect((await reapAbandonedRuns({ warehouse: stack.warehouse, queue })).reaped).toEqual([]);
  });

  it('keeps an abandoned run\'s rows within the retention and prunes them past it', async () => {
    const window = await leftRunning('visitors_orphan_b', 'reap-retention', new Date(Date.now() - HOUR_MS), 4);
    const queue = stack.runtime.queue(QUEUE_NAMES.export);
    expect((await reapAbandonedRuns({ warehouse: stack.warehouse, queue })).reaped.map((r) => r.runId)).toEqual(['visitors_orphan_b']);
    await pruneSuperseded(stack.warehouse, ['visitor_rows'], { now: new Date(Date.now() + 13 * DAY_MS) });
    expect(await storedRows(stack.warehouse, 'visitor_rows', 'visitors_orphan_b')).toBe(4);
    expect((await latestResumableRun(stack.warehouse, window, { now: new Date(Date.now() + 13 * DAY_MS) }))?.runId).toBe('visitors_orphan_b');
    await pruneSuperseded(stack.warehouse, ['visitor_rows'], { now: new Date(Date.now() + 15 * DAY_MS) });
    expect(await storedRows(stack.warehouse, 'visitor_rows', 'visitors_orphan_b')).toBe(0);
    expect(await latestResumableRun(stack.warehouse, window, { now: new Date(Date.now() + 15 * DAY_MS) })).toBeNull();
  });

  it('keeps a run whose job waits prioritized (a nightly window behind others) running', async () => {
    // Left a month ago, judged as of a day later: no other test's run is old enough to be looked at.
    const leftAt = new Date(Date.now() - 30 * DAY_MS);
    await leftRunning('visitors_prio_a', 'reap-prio', leftAt, 1);
    // A queue of its own with no worker, so the prioritized job stays prioritized.
    const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
    const queue = new Queue('export', { connection: redis, prefix: `t${randomBytes(4).toString('hex')}` });
    try {
      const data = { dataset: 'visitors', projectId: 'reap-prio', dateFrom: '2026-09-01', dateTo: '2026-09-02', kind: 'nightly', runId: 'visitors_prio_a' };
      await queue.add('window', data, { jobId: 'visitors_prio_a', priority: 1 });
      expect(await queue.getJobState('visitors_prio_a')).toBe('prioritized');
      const now = new Date(leftAt.getTime() + DAY_MS);
      expect((await reapAbandonedRuns({ warehouse: stack.warehouse, queue, now })).reaped).toEqual([]);
      expect((await status('visitors_prio_a'))!.status).toBe('running');
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
      redis.disconnect();
    }
  });

  it('is reaped by the nightly plan before it enqueues the night\'s windows', async () => {
    await leftRunning('visitors_orphan_c', 'reap-nightly', new Date(Date.now() - HOUR_MS), 1);
    const queue = stack.runtime.queue(QUEUE_NAMES.export);
    const job = await queue.add('plan-nightly', { runAt: '2026-09-10T02:00:00Z' }, { jobId: 'plan-reap-test' });
    await until('the nightly plan job to complete', async () => ((await job.isCompleted()) ? true : undefined));
    expect((await status('visitors_orphan_c'))!.status).toBe('abandoned');
  });
});
