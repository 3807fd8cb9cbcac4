/**
 * The reported case, through the bin: an `export --wait` on a spent budget is killed with its
 * windows delayed, and `export cancel` with no worker running removes the ones that fetched
 * nothing, says how many were cancelled while waiting, and ends their runs `cancelled`; the window
 * that fetched a page stays in flight, its run still running.
 */
import type { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExportJobData } from '../../src/export/enqueue.js';
import { openQueue, QUEUE_NAMES, queueKeyPrefix } from '../../src/queue/queues.js';
import { createRedisConnection } from '../../src/queue/redis-connection.js';
import { openCliStack, type CliStack } from '../support/test-stack.js';
import { runCli, startCli } from '../support/run-cli.js';
import { until } from '../support/wait.js';

let cli: CliStack;
let connection: Redis;
let queue: Queue;
beforeAll(async () => {
  // One request an hour: the first window gets one page, then every window waits for the budget.
  cli = await openCliStack({ emulator: {}, env: { MINTPIPE_ANALYTICS_RATE: '1/1h', LOG_LEVEL: 'warn' } });
  connection = createRedisConnection(process.env.REDIS_URL!, 'cancel-waiting-test');
  queue = openQueue(QUEUE_NAMES.export, connection, queueKeyPrefix(cli.prefix));
});
afterAll(async () => {
  await queue?.close();
  connection?.disconnect();
  await cli?.close();
});

describe('export cancel after an export waiting on the budget was killed', () => {
  it('removes the windows whose run fetched nothing, counts them as cancelled while waiting, and ends their runs', async () => {
    const exporting = await startCli(['export', '--project', 'p4', '--from', '2026-09-01', '--to', '2026-09-04', '--wait'], cli.env, (p) => p.stdout.includes('enqueued 3 window(s)'));
    try {
      await until('all three windows delayed for the budget, with their runs started', async () => {
        const jobs = (await queue.getJobs(['delayed'])) as Array<Job<ExportJobData>>;
        return jobs.length === 3 && jobs.every((j) => j.data.checkpoint !== undefined) ? jobs : undefined;
      });
    } finally {
      exporting.child.kill('SIGKILL');
      await exporting.exited;
    }
    const cancel = await runCli(['export', 'cancel', '--project', 'p4'], cli.env);
    expect({ code: cancel.code, stderr: cancel.stderr }).toEqual({ code: 0, stderr: '' });
    expect(cancel.stdout).toMatch(/^removed 2 queued window\(s\), 2 of them cancelled while waiting for budget or a retry; 1 in flight will finish$/m);
    expect(await queue.getJobCounts('delayed', 'waiting', 'prioritized')).toEqual({ delayed: 1, waiting: 0, prioritized: 0 });

    const runs = await runCli(['query', "SELECT status, count() AS n FROM export_runs WHERE project_id = 'p4' GROUP BY status ORDER BY status", '--format', 'json'], cli.env);
    expect(runs.code).toBe(0);
    expect((JSON.parse(runs.stdout) as Array<{ status: string; n: number | string }>).map((r) => [r.status, Number(r.n)])).toEqual([
      ['cancelled', 2],
      ['running', 1],
    ]);
  }, 120_000);
});
