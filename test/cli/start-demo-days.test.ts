/**
 * `start --demo-days N` takes a whole number of days from 0 to 90, and refuses anything else in one
 * line, exit 2, before it starts anything: an empty value is not 0, nor is hex or a fraction a day count.
 */
import { describe, expect, it } from 'vitest';
import { QUEUE_NAMES, queueKeyPrefix } from '../../src/queue/queue-names.js';
import { openQueue } from '../../src/queue/queues.js';
import { createRedisConnection } from '../../src/queue/redis-connection.js';
import { runCli, startCli } from '../support/run-cli.js';
import { testEnv } from '../support/test-env.js';

describe('start --demo-days', () => {
  it.each(['', 'abc', '0x10', '1.5', '1e1', '-1', '91'])('refuses %j in one line naming the flag, exit 2, and starts nothing', async (value) => {
    const result = await runCli(['start', '--demo-days', value, '--no-dashboard', '--no-scheduler', '--no-workers'], testEnv(), 30_000);
    expect({ code: result.code, stderr: result.stderr, stdout: result.stdout }).toEqual({
      code: 2,
      stderr: `mintpipe: --demo-days: expected a whole number of days from 0 to 90, got "${value}"\n`,
      stdout: '',
    });
  }, 40_000);

  it('exports no demo days with --no-workers, and says why: no other process can reach the built-in emulator, so they would wait forever', async () => {
    const { MINTLIFY_API_KEY: _key, MINTLIFY_API_URL: _url, ...env } = testEnv();
    const start = await startCli(['start', '--no-workers', '--no-dashboard', '--no-scheduler'], env);
    const redis = createRedisConnection(env.REDIS_URL!, 'start-demo-no-workers');
    const queue = openQueue(QUEUE_NAMES.export, redis, queueKeyPrefix(env.MINTPIPE_QUEUE_PREFIX!));
    try {
      expect(start.output().stdout).not.toContain('exporting');
      expect(start.output().stdout).toContain('no demo export: --no-workers, and only this process can reach the built-in emulator');
      expect(await queue.getJobCounts()).toMatchObject({ waiting: 0, prioritized: 0, delayed: 0 });
    } finally {
      start.child.kill('SIGTERM');
      await start.exited;
      await queue.obliterate({ force: true });
      await queue.close();
      redis.disconnect();
    }
  }, 60_000);
});
