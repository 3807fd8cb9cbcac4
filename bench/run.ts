/**
 * `npm run bench`: starts a private redis-server on a free port, runs the benchmarks side by side
 * in this one run, and prints ratios. Timings belong here, never in tests.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitForRedis } from '../test/support/ports.js';
import { exportBench } from './export-bench.js';

const only = process.argv[2];
const dir = mkdtempSync(join(tmpdir(), 'mintpipe-bench-redis-'));
// Every data dir a benchmark makes (mkdtemp under tmpdir()) goes in this run's dir, removed at the end.
process.env.TMPDIR = dir;
const port = await freePort();
const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--maxmemory-policy', 'noeviction'], { stdio: 'ignore' });
const redisUrl = `redis://127.0.0.1:${port}`;
try {
  await waitForRedis(redisUrl, 10_000);
  const lines: string[] = [];
  if (!only || only === 'export') lines.push(...(await exportBench(redisUrl)));
  if (!only || only === 'datasets') {
    const { datasetsBench } = await import('./datasets-bench.js');
    lines.push(...(await datasetsBench(redisUrl)));
  }
  if (!only || only === 'shutdown') {
    const { shutdownBench } = await import('./shutdown-bench.js');
    lines.push(...(await shutdownBench(redisUrl)));
  }
  if (!only || only === 'prompts') {
    const { promptsBench } = await import('./prompts-bench.js');
    lines.push(...(await promptsBench(redisUrl)));
  }
  // Only when asked for: it runs the same backfill three times.
  if (only === 'scale') {
    const { scaleBench } = await import('./scale-bench.js');
    lines.push(...(await scaleBench(redisUrl)));
  }
  process.stdout.write(`\n${lines.join('\n')}\n`);
} finally {
  redis.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
