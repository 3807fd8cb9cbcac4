/**
 * Shutdown benchmark: how long `mintpipe worker` takes to exit after SIGTERM, idle and with a
 * window job stuck in a slow upstream request, under a 1 s grace period (MINTPIPE_SHUTDOWN_GRACE).
 * The promise (src/cli/run-until-signal.ts): exit at most ~1 s after the grace, code 0 when the
 * worker released its jobs. Timings belong here, never in tests.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { enqueueWindows } from '../src/export/enqueue.js';
import { queueKeyPrefix } from '../src/queue/queue-names.js';
import { spawnEmulator } from './spawn-emulator.js';

const GRACE_MS = 1000;

export async function shutdownBench(redisUrl: string): Promise<string[]> {
  // Each upstream request takes 60 s: a job in flight cannot finish within the grace.
  const emulator = await spawnEmulator(60_000);
  const lines: string[] = [];
  try {
    for (const busy of [false, true]) {
      const prefix = `benchstop${Date.now()}`;
      const env = {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        REDIS_URL: redisUrl,
        MINTLIFY_API_URL: emulator.url,
        MINTLIFY_API_KEY: 'mint_bench',
        MINTPIPE_ANALYTICS_RATE: 'off',
        MINTPIPE_DATA_DIR: mkdtempSync(join(tmpdir(), 'mintpipe-bench-stop-')),
        MINTPIPE_QUEUE_PREFIX: prefix,
        MINTPIPE_SHUTDOWN_GRACE: `${GRACE_MS}ms`,
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'json',
      };
      const child = spawn(process.execPath, ['bin/mintpipe.js', 'worker', '--queues', 'export'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
      const queue = new Queue('export', { connection: redis, prefix: queueKeyPrefix(prefix) });
      try {
        while (!stderr.includes('mintpipe worker: export')) {
          if (child.exitCode !== null) throw new Error(`worker exited early: ${stderr}`);
          await new Promise((r) => setTimeout(r, 50));
        }
        if (busy) {
          const [e] = await enqueueWindows(queue, [{ dataset: 'visitors', projectId: 'stop-docs', dateFrom: '2026-10-01', dateTo: '2026-10-02', kind: 'manual' }]);
          while ((await queue.getJobState(e!.jobId)) !== 'active') await new Promise((r) => setTimeout(r, 20));
          await new Promise((r) => setTimeout(r, 300)); // the request is out
        }
        const started = performance.now();
        child.kill('SIGTERM');
        const code = await exited;
        const ms = performance.now() - started;
        lines.push(
          `shutdown ${busy ? 'with a job in flight' : 'idle'}, grace ${GRACE_MS / 1000} s: exited after ${(ms / 1000).toFixed(2)} s ` +
            `(${busy ? `${((ms - GRACE_MS) / 1000).toFixed(2)} s past the grace` : 'no grace needed'}), exit code ${code}`,
        );
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
        await queue.obliterate({ force: true }).catch(() => {});
        await queue.close();
        redis.disconnect();
      }
    }
  } finally {
    emulator.stop();
  }
  return lines;
}
