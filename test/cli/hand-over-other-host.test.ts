/**
 * The hand-over check judges a running process dead by pid and start time only on the machine that
 * published it: a worker on another host, whose pid means nothing here, still counts, so a shell
 * set for another upstream is refused rather than handing it work.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { checkUpstreamHandOver, runningProcesses } from '../../src/cli/hand-over-check.js';
import { UsageError } from '../../src/errors.js';
import { describeProcess, publishInstallation } from '../../src/queue/installation-info.js';
import { createRedisConnection } from '../../src/queue/redis-connection.js';

let redis: Redis;
beforeAll(() => {
  redis = createRedisConnection(process.env.REDIS_URL!, 'hand-over-other-host-test');
});
afterAll(async () => {
  await redis.quit();
});

describe('the hand-over check and a worker on another machine', () => {
  it('counts it as running though its pid here is another process, and refuses a shell set for another upstream', async () => {
    const queuePrefix = `mphost-${randomUUID().slice(0, 8)}`;
    const theirs = loadConfig({ MINTLIFY_API_URL: 'https://theirs.example:4000' });
    const record = describeProcess('worker', theirs, {
      queues: ['prompts'],
      scheduler: false,
      targets: { upstream: { url: theirs.api.url, builtInEmulator: false, keyFingerprint: null }, warehouse: 'embedded elsewhere', queuePrefix },
    });
    // This process's pid with another start time: here it names someone else, there the worker.
    const elsewhere = { ...record, host: `not-${record.host}`, pidSpace: 'another-boot/pid:[4026531836]', pid: process.pid, startTicks: '1' };
    const publication = await publishInstallation(redis, queuePrefix, elsewhere, { ttlMs: 60_000 });
    try {
      const env = { MINTLIFY_API_URL: 'https://mine.example:5000' };
      const mine = { ...loadConfig(env), queuePrefix };
      expect((await runningProcesses(redis, queuePrefix, 'prompts')).map((p) => p.host)).toEqual([elsewhere.host]);
      const refused = checkUpstreamHandOver(redis, mine, 'prompts', env);
      await expect(refused).rejects.toThrow(UsageError);
      await expect(checkUpstreamHandOver(redis, mine, 'prompts', env)).rejects.toThrow(
        /^MINTLIFY_API_URL: this shell sends to https:\/\/mine\.example:5000\/?, the running worker pid \d+ sends to https:\/\/theirs\.example:4000/,
      );
    } finally {
      await publication.stop();
    }
  });
});
