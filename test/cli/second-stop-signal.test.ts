/**
 * A second Ctrl-C means "now": the command exits at once, and what it started for itself goes
 * with it. A one-shot `export --wait` on the private Redis, stopped twice while its page hangs,
 * leaves no redis-server running and no record of itself as the server's user.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { isLive, type ProcessIdentity } from '../../src/process-identity.js';
import { startCli } from '../support/run-cli.js';
import { testEnv } from '../support/test-env.js';
import { until } from '../support/wait.js';

let emulator: RunningEmulator;

beforeAll(async () => {
  // Every answer takes a minute: the export is mid-page when the signals come.
  emulator = await startEmulator({ port: 0, latencyMs: 60_000 });
});

afterAll(async () => {
  await emulator?.close();
});

describe('a second Ctrl-C', () => {
  it('exits at once, and the last user of the private Redis stops it on the way out', async () => {
    // No REDIS_URL: the command starts the data dir's private server for itself.
    const { REDIS_URL: _shared, ...env } = testEnv({ MINTLIFY_API_URL: emulator.url, LOG_LEVEL: 'warn' });
    const running = await startCli(['export', '--project', 'twice', '--from', '2026-10-01', '--to', '2026-10-02', '--wait'], env, (printed) =>
      printed.stdout.includes('enqueued'),
    );
    const redisDir = join(env.MINTPIPE_DATA_DIR!, 'redis');
    const server = JSON.parse(readFileSync(join(redisDir, 'server.json'), 'utf8')) as ProcessIdentity;
    expect(isLive(server)).toBe(true);
    await until('the page to be asked for', async () => (emulator.counters.analyticsRequests > 0 ? true : undefined), 30_000);
    running.child.kill('SIGINT');
    // Two signals sent at once arrive as one: the second goes once the first was taken.
    await until('the first Ctrl-C to be taken', async () => (running.output().stderr.includes('stopped following') ? true : undefined), 10_000);
    running.child.kill('SIGINT');
    // At once: not after the workers' grace for the page in flight (30 s by default).
    const signalledAt = Date.now();
    expect(await running.exited).toBe(130);
    expect(Date.now() - signalledAt).toBeLessThan(10_000);
    expect(readdirSync(join(redisDir, 'holders'))).toEqual([]);
    await until('the private redis-server to stop', async () => (isLive(server) ? undefined : true), 10_000);
  });
});
