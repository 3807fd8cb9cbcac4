/**
 * `mintpipe status` after the worker running a window was SIGKILLed, with no other worker running:
 * the window's job stays active in Redis and its run `running` in the warehouse until some worker's
 * stalled check takes it back. Status says the job is stalled, that its run is not held by any
 * worker, and that nothing works the export queue; while the worker lived, it said none of that.
 * And status beside a short one-shot command that has the embedded warehouse: it waits its turn.
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { enqueueWindows } from '../../src/export/enqueue.js';
import type { StatusReport } from '../../src/ops/status-report.js';
import { queueKeyPrefix } from '../../src/queue/queue-names.js';
import { createRedisConnection } from '../../src/queue/redis-connection.js';
import { openWarehouse } from '../../src/warehouse/index.js';
import { runCli, startCli, type RunningCli } from '../support/run-cli.js';
import { fileTempDir, testEnv } from '../support/test-env.js';
import { seedWarehouse } from '../support/warehouse-template.js';
import { until } from '../support/wait.js';

let emulator: RunningEmulator;
let redis: Redis;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, latencyMs: 300 });
  redis = createRedisConnection(process.env.REDIS_URL!, 'status-stalled-test');
});
afterAll(async () => {
  await emulator.close();
  redis.disconnect();
});

async function status(env: Record<string, string>): Promise<{ text: string; json: StatusReport }> {
  const text = await runCli(['status'], env);
  const json = await runCli(['status', '--format', 'json'], env);
  expect([text.code, text.stderr, json.code, json.stderr]).toEqual([0, '', 0, '']);
  return { text: text.stdout, json: JSON.parse(json.stdout) as StatusReport };
}

describe('status beside another one-shot command', () => {
  it('waits for the command that has the embedded warehouse (it serves no gateway), saying so, and then reads it', async () => {
    const dataDir = seedWarehouse(fileTempDir('status-wait'));
    const env = testEnv({ MINTPIPE_DATA_DIR: dataDir });
    // This test process plays a `query` that has the engine: it holds the directory and serves no gateway.
    const held = await openWarehouse({ database: 'mintpipe', dataDir });
    let closed = false;
    try {
      const waiting = await startCli(['status', '--format', 'json'], env, (printed) => printed.stderr.includes('waiting'));
      expect(waiting.output().stderr).toBe(`status: waiting up to 30s for the embedded warehouse (in use by pid ${process.pid})\n`);
      await held.close();
      closed = true;
      expect(await waiting.exited).toBe(0);
      const report = JSON.parse(waiting.output().stdout) as StatusReport;
      expect(report.datasets).toMatchObject({ readable: true, via: 'embedded' });
    } finally {
      if (!closed) await held.close();
    }
  }, 60_000);
});

describe('status after a worker died mid-window', () => {
  it('shows the stalled job and its run as no longer held, and that no process works the queue', async () => {
    // A lock of 1 s: the killed worker's lock expires quickly (BullMQ renews it at half that).
    const env = testEnv({ MINTLIFY_API_URL: emulator.url, MINTPIPE_LOCK_DURATION: '1s', MINTPIPE_EXPORT_CONCURRENCY: '1', MINTPIPE_BATCH_ROWS: '250', LOG_LEVEL: 'warn' });
    const project = 'stall-20000'; // pages of 300 ms each: the worker is mid-window when killed
    const queue = new Queue('export', { connection: redis, prefix: queueKeyPrefix(env.MINTPIPE_QUEUE_PREFIX!) });
    let worker: RunningCli | undefined;
    try {
      worker = await startCli(['worker', '--queues', 'export'], env, (printed) => printed.stderr.includes('mintpipe worker:'));
      const windows = ['2026-10-01', '2026-10-02', '2026-10-03'].map((day, i) => ({ dataset: 'visitors' as const, projectId: project, dateFrom: day, dateTo: `2026-10-0${i + 2}`, kind: 'manual' as const }));
      const [first] = await enqueueWindows(queue, windows);
      await until('the first window loading rows', async () => ((((await queue.getJob(first!.jobId))?.progress as { rows?: number } | undefined)?.rows ?? 0) >= 250 ? true : undefined));

      const alive = await status(env);
      expect(alive.json.queues.find((q) => q.name === 'export')).toMatchObject({ stalled: 0, counts: { active: 1 } });
      // Whichever window the worker is in (the first may be done by now): one, held.
      const inWindow = alive.json.lastRuns.filter((r) => r.status === 'running');
      expect(inWindow.map((r) => r.job)).toEqual(['held']);
      const window = inWindow[0]!.window;
      expect(alive.text).not.toMatch(/stalled|^note:/m);

      worker.child.kill('SIGKILL');
      await worker.exited;
      await until('the dead worker lock to expire', async () => ((await redis.exists(`${queue.toKey(first!.jobId)}:lock`)) === 0 ? true : undefined));

      const dead = await status(env);
      expect(dead.json.queues.find((q) => q.name === 'export')).toMatchObject({ stalled: 1, workers: 0, counts: { active: 1 } });
      expect(dead.json.lastRuns.filter((r) => r.status === 'running').map((r) => [r.window, r.job])).toEqual([[window, 'stalled']]);
      const { waiting = 0, prioritized = 0 } = dead.json.queues.find((q) => q.name === 'export')!.counts;
      const left = waiting + prioritized + 1;
      expect(dead.text).toMatch(new RegExp(`^queue export +workers 0 {2}waiting ${left - 1} {2}active 1 \\(1 stalled\\) `, 'm'));
      expect(dead.text).toContain(`\nnote: ${left} export job${left === 1 ? '' : 's'} (1 of them stalled) and no running process works the export queue; \`mintpipe start\` or \`mintpipe worker\` runs them\n`);
      expect(dead.text).toContain(`\nrun visitors stall-20000 ${window} manual running (stalled: the process running it stopped; a worker takes it back and resumes it) `);
    } finally {
      if (worker && worker.child.exitCode === null) worker.child.kill('SIGKILL');
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    }
  }, 120_000);
});
