/**
 * Starts one real redis-server on a free port for the whole test run (tests isolate themselves
 * with random queue prefixes) and exposes its URL as `REDIS_URL` to every test file (forked test
 * processes inherit the environment).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitForRedis } from './ports.js';
import { ensureSystemPackages } from './system-packages.js';

let redis: ChildProcess | undefined;
let dir: string | undefined;

export default async function setup(): Promise<() => Promise<void>> {
  ensureSystemPackages();
  dir = mkdtempSync(join(tmpdir(), 'mintpipe-test-redis-'));
  const port = await freePort();
  redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--maxmemory-policy', 'noeviction'], {
    stdio: 'ignore',
  });
  redis.on('error', (err) => {
    throw new Error(`redis-server could not start (is it installed? .ci/run installs it): ${err.message}`);
  });
  const url = `redis://127.0.0.1:${port}`;
  await waitForRedis(url, 10_000);
  process.env.REDIS_URL = url;
  return async () => {
    redis?.kill('SIGTERM');
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
}
