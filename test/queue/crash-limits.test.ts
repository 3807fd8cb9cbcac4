/**
 * A job's crashes (its worker died: BullMQ found it stalled) and its failures spend one budget,
 * its attempts. A window whose budget the crashes spent ends failed with its run `abandoned`, its
 * checkpoint kept, and `status` names the command that retries it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queue } from 'bullmq';
import { enqueueWindows, type ExportJobData } from '../../src/export/enqueue.js';
import { gatherStatus } from '../../src/ops/status-report.js';
import { statusText } from '../../src/ops/status-text.js';
import { queueKeyPrefix, QUEUE_NAMES } from '../../src/queue/queues.js';
import { recordRunEvent } from '../../src/warehouse/index.js';
import { openExportStack, type ExportStack } from '../support/export-stack.js';
import { until } from '../support/wait.js';
import { startTestCluster, type TestCluster } from '../support/redis-cluster.js';
import { fileTempDir } from '../support/test-env.js';

let stack: ExportStack;
let queue: Queue;
let cluster: TestCluster | undefined;
// One data dir for both runs: the embedded engine serves one directory per process.
const dataDir = fileTempDir('crash-limits');
afterAll(async () => {
  await cluster?.stop();
});

describe.each([
  ['one Redis', async () => process.env.REDIS_URL!],
  ['a Redis Cluster of 3 masters', async () => (cluster ??= await startTestCluster()).url],
])('crash limits, on %s', (_where, redisUrl) => {
  beforeAll(async () => {
    stack = await openExportStack({ dataDir, env: { REDIS_URL: await redisUrl() } });
    queue = stack.runtime.queue(QUEUE_NAMES.export);
  });
  afterAll(() => stack?.close());

  it('gives a window job as many crashes as attempts: its workers put a stalled job back until then', async () => {
    const { workers } = await stack.runtime.startWorkers([QUEUE_NAMES.export]);
    const [enqueued] = await enqueueWindows(queue, [{ dataset: 'visitors', projectId: 'budget-docs', dateFrom: '2026-09-01', dateTo: '2026-09-02', kind: 'manual' }]);
    const job = await queue.getJob(enqueued!.jobId);
    expect(workers.map((w) => w.opts.maxStalledCount)).toEqual([job!.opts.attempts]);
  });

  it('ends a window whose worker crashed as often as its attempts as failed, its run abandoned with its checkpoint, and status names the retry', async () => {
    const window = { dataset: 'visitors' as const, projectId: 'crashy-docs', dateFrom: '2026-10-01', dateTo: '2026-10-02' };
    const runId = 'visitors_crashy_left_running';
    const startedAt = new Date(Date.now() - 60_000).toISOString();
    const checkpoint = { runId, restarts: 0, startedAt, requests: 4, offset: 1000, rows: 1000, pages: 4 };
    await recordRunEvent(stack.warehouse, { ...window, runId, kind: 'manual', status: 'running', rows: 1000, pages: 4, requests: 4, startedAt });
    // What two crashes leave in Redis: a job with its checkpoint whose stall counter reached its two attempts.
    await queue.pause();
    const data: ExportJobData = { ...window, kind: 'manual', runId, checkpoint };
    await queue.add('window', data, { jobId: runId, attempts: 2 });
    await stack.runtime.redis.hset(`${queueKeyPrefix(stack.config.queuePrefix)}:${QUEUE_NAMES.export}:${runId}`, 'stc', 2);
    await queue.resume();

    const state = await until('the window to end', async () => {
      const s = await queue.getJobState(runId);
      return s === 'completed' || s === 'failed' ? s : undefined;
    });
    expect(state).toBe('failed');
    const retry = 'mintpipe export --project crashy-docs --dataset visitors --from 2026-10-01 --to 2026-10-02 --grain range';
    expect((await queue.getJob(runId))?.failedReason).toContain(`retry with \`${retry}\``);
    const [run] = await stack.rows(`SELECT status, rows FROM export_runs WHERE run_id = '${runId}'`);
    expect({ status: run?.status, rows: Number(run?.rows) }).toEqual({ status: 'abandoned', rows: 1000 });

    const text = statusText(await gatherStatus({ ...stack.runtime, queue: stack.runtime.queue.bind(stack.runtime), redis: stack.runtime.redis, redisWhere: stack.runtime.redisWhere, config: stack.config, warehouse: async () => stack.warehouse }));
    // The run reads as stored (abandoned, its rows kept); the window counts as failed.
    expect(text).toContain(`run visitors crashy-docs 2026-10-01..2026-10-02 manual abandoned 1000 rows`);
    expect(text).toContain(retry);
    // The datasets table counts the window as failed too.
    expect(text).toMatch(/^ *visitors +crashy-docs .* 1 +[^\n]*$/m);
  });
});
