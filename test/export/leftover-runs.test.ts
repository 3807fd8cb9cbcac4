/**
 * Every run ends: a run left `running` whose job Redis lost, or whose job ended without the run's
 * final event, is marked `abandoned` by the next command that works the export queue, and the next
 * export of its window resumes it instead of fetching it again.
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { enqueueWindows } from '../../src/export/enqueue.js';
import { queueKeyPrefix } from '../../src/queue/queue-names.js';
import { recordRunEvent } from '../../src/warehouse/index.js';
import { openExportStack, testEnv } from '../support/export-stack.js';
import { fileTempDir, randomPrefix } from '../support/test-env.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { runCli, startCli } from '../support/run-cli.js';
import { until } from '../support/wait.js';

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, latencyMs: 40 });
});
afterAll(() => emulator.close());

async function query(sql: string, env: Record<string, string>): Promise<Record<string, unknown>[]> {
  const result = await runCli(['query', sql, '--format', 'json'], env);
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout) as Record<string, unknown>[];
}

describe('runs left running', () => {
  let redis: TestRedis | undefined;
  afterAll(() => redis?.stop());

  it('after Redis lost its data mid-export, the next export adopts the run: it fetches the remaining pages plus at most one batch', async () => {
    redis = await startTestRedis(['--appendonly', 'yes', '--maxmemory-policy', 'noeviction']);
    const env = testEnv({ REDIS_URL: redis.url, MINTLIFY_API_URL: emulator.url, MINTPIPE_BATCH_ROWS: '1000', MINTPIPE_PREFETCH_PAGES: '2', MINTPIPE_REAP_AFTER: '1ms', LOG_LEVEL: 'warn' });
    const project = 'crash-15000'; // 15,000 paths: 60 pages of 250; a batch of 1,000 rows is 4 pages
    const window = { dateFrom: '2026-10-01', dateTo: '2026-10-02' };
    const client = new Redis(redis.url, { maxRetriesPerRequest: null });
    const queue = new Queue('export', { connection: client, prefix: queueKeyPrefix(env.MINTPIPE_QUEUE_PREFIX!) });
    const worker = await startCli(['worker', '--queues', 'export'], env, (printed) => printed.stderr.includes('mintpipe worker:'));
    try {
      const [enqueued] = await enqueueWindows(queue, [{ dataset: 'visitors', projectId: project, ...window, kind: 'manual' }]);
      await until('rows loaded before Redis loses its data', async () => {
        const rows = ((await queue.getJob(enqueued!.jobId))?.progress as { rows?: number } | undefined)?.rows ?? 0;
        return rows >= 3000 ? rows : undefined;
      });
      await client.flushall();
      worker.child.kill('SIGKILL');
      await worker.exited;
    } finally {
      if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
      await queue.close();
      client.disconnect();
    }
    const [left] = await query(`SELECT status, run_id FROM export_runs WHERE project_id = '${project}'`, env);
    expect(left?.status).toBe('running');
    const [staged] = await query(`SELECT count() AS n FROM visitor_rows WHERE run_id = '${String(left?.run_id)}'`, env);
    const remainingPages = Math.ceil((15_000 - Number(staged?.n)) / 250);

    const before = emulator.counters.routes.visitors.requests;
    const again = await runCli(['export', '--project', project, '--from', window.dateFrom, '--to', window.dateTo, '--wait'], env);
    expect(again.code).toBe(0);
    const requests = emulator.counters.routes.visitors.requests - before;
    expect(requests).toBeGreaterThanOrEqual(remainingPages);
    expect(requests).toBeLessThanOrEqual(remainingPages + 4);
    const runs = await query(`SELECT run_id, status FROM export_runs WHERE project_id = '${project}' ORDER BY status`, env);
    expect(runs).toEqual([{ run_id: left?.run_id, status: 'complete' }]);
    const [stored] = await query(`SELECT count() AS n, uniqExact(path) AS paths FROM visitors WHERE project_id = '${project}'`, env);
    expect([Number(stored?.n), Number(stored?.paths)]).toEqual([15_000, 15_000]);
  }, 180_000);

  it('a run whose job ended without its final event is abandoned by the next export, which leaves no run running', async () => {
    // The data dir and prefix outlive the stack (the next export runs on them): the test's, not the stack's.
    const dataDir = fileTempDir('leftover');
    const prefix = randomPrefix();
    const stack = await openExportStack({ emulator: { port: 0 }, dataDir, env: { MINTPIPE_REAP_AFTER: '1ms', MINTPIPE_QUEUE_PREFIX: prefix } });
    const runId = 'visitors_final_event_lost';
    const window = { dataset: 'visitors' as const, projectId: 'lost-final-docs', dateFrom: '2026-10-01', dateTo: '2026-10-02' };
    try {
      await recordRunEvent(stack.warehouse, { ...window, runId, kind: 'manual', status: 'running', rows: 0, pages: 0, requests: 0, startedAt: new Date(Date.now() - 60_000).toISOString() });
      // Its job fails for good before the run's final event is written (here: data the processor refuses).
      const queue = stack.runtime.queue('export');
      await queue.add('window', { ...window, kind: 'manual', runId, dateTo: 'not a date' }, { jobId: runId });
      await until('the job to fail', async () => ((await queue.getJobState(runId)) === 'failed' ? true : undefined));
    } finally {
      await stack.close();
    }
    const env = testEnv({ MINTLIFY_API_URL: emulator.url, MINTPIPE_DATA_DIR: dataDir, MINTPIPE_QUEUE_PREFIX: prefix, MINTPIPE_REAP_AFTER: '1ms' });
    const next = await runCli(['export', '--project', 'other-docs', '--from', '2026-10-01', '--to', '2026-10-02', '--wait'], env);
    expect(next.code).toBe(0);
    expect(await query(`SELECT run_id, status FROM export_runs WHERE status = 'running' OR run_id = '${runId}'`, env)).toEqual([{ run_id: runId, status: 'abandoned' }]);
  }, 120_000);
});
