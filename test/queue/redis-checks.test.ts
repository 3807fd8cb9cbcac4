import { PassThrough } from 'node:stream';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { Runtime } from '../../src/cli/runtime.js';
import { createLogger } from '../../src/logger.js';
import { QUEUE_NAMES } from '../../src/queue/queue-names.js';
import { checkRedisPersistence, VolatileRedisError } from '../../src/queue/redis-persistence.js';
import { testEnv } from '../support/export-stack.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { runCli, startCli } from '../support/run-cli.js';
import { until } from '../support/wait.js';

const servers: TestRedis[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
});

async function ownRedis(args: string[], password?: string): Promise<TestRedis> {
  const server = await startTestRedis(args, { password });
  servers.push(server);
  return server;
}

describe('the Redis a worker is given', () => {
  it('reads AOF and eviction with INFO: a stock Redis is not durable, the test Redis (AOF, noeviction) is', async () => {
    const volatile = await ownRedis(['--appendonly', 'no', '--maxmemory-policy', 'allkeys-lru']);
    const client = new Redis(volatile.url);
    const report = await checkRedisPersistence(client);
    client.disconnect();
    expect(report.durable).toBe(false);
    expect(report.problems).toEqual([`127.0.0.1:${volatile.port}: appendonly no`, `127.0.0.1:${volatile.port}: maxmemory-policy allkeys-lru`]);

    const durable = new Redis(process.env.REDIS_URL!);
    expect((await checkRedisPersistence(durable)).durable).toBe(true);
    durable.disconnect();
  });

  it('counts any eviction policy but noeviction as not durable, even a volatile-* one with AOF on', async () => {
    const evicting = await ownRedis(['--appendonly', 'yes', '--maxmemory-policy', 'volatile-lru']);
    const client = new Redis(evicting.url);
    const report = await checkRedisPersistence(client);
    client.disconnect();
    expect(report.durable).toBe(false);
    expect(report.problems).toEqual([`127.0.0.1:${evicting.port}: maxmemory-policy volatile-lru`]);
  });

  it('refuses to start the prompts queue on a Redis that can lose jobs, warning loudly, unless MINTPIPE_ALLOW_VOLATILE_REDIS=1', async () => {
    const volatile = await ownRedis(['--appendonly', 'no']);
    const lines = new PassThrough();
    let logged = '';
    lines.on('data', (chunk: Buffer) => (logged += chunk.toString()));
    const logger = createLogger({ level: 'warn', format: 'json', destination: lines });
    const runtime = await Runtime.open({ config: loadConfig(testEnv({ REDIS_URL: volatile.url })), logger });
    try {
      const refusal = await runtime.startWorkers([QUEUE_NAMES.prompts]).catch((err: unknown) => err);
      expect(refusal).toBeInstanceOf(VolatileRedisError);
      expect((refusal as Error).message).toMatch(/^refusing to run the prompts queue on a Redis that can lose jobs \(127\.0\.0\.1:\d+: appendonly no\).*MINTPIPE_ALLOW_VOLATILE_REDIS=1 to run anyway$/);
      expect(logged).toContain('"event":"redis_not_durable"');
    } finally {
      await runtime.close();
    }

    const allowed = await Runtime.open({ config: loadConfig(testEnv({ REDIS_URL: volatile.url, MINTPIPE_ALLOW_VOLATILE_REDIS: '1' })), logger });
    try {
      const workers = await allowed.startWorkers([QUEUE_NAMES.prompts]);
      expect(workers.workers.map((w) => w.name)).toEqual([QUEUE_NAMES.prompts]);
    } finally {
      await allowed.close();
    }
  }, 90_000);

  it('ends a one-shot command with one line on a wrong password (exit 2, the password never shown) or an unreachable Redis (exit 1)', async () => {
    const guarded = await ownRedis(['--appendonly', 'yes'], 'right-password-4e1f');
    const wrong = await runCli(['status'], testEnv({ REDIS_URL: `redis://:wrong-password-9c2a@127.0.0.1:${guarded.port}`, LOG_LEVEL: '' }), 30_000);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe(`mintpipe: Redis at redis://127.0.0.1:${guarded.port} refused the credentials (WRONGPASS); check the user and password in REDIS_URL\n`);
    expect(wrong.stdout).toBe('');

    const port = guarded.port;
    await guarded.stop();
    servers.splice(servers.indexOf(guarded), 1);
    const down = await runCli(['status'], testEnv({ REDIS_URL: `redis://:right-password-4e1f@127.0.0.1:${port}`, LOG_LEVEL: '' }), 30_000);
    expect(down.code).toBe(1);
    expect(down.stderr).toBe(`mintpipe: cannot reach Redis at redis://127.0.0.1:${port} (ECONNREFUSED); start it or fix REDIS_URL\n`);
  }, 90_000);

  it('logs a lost and a regained connection once each while Redis restarts under a running worker, with no stack traces', async () => {
    const redis = await ownRedis(['--appendonly', 'yes']);
    const env = testEnv({ REDIS_URL: redis.url, LOG_LEVEL: 'info', LOG_FORMAT: 'json', MINTLIFY_API_URL: 'http://127.0.0.1:9' });
    const { child, output, exited } = await startCli(['worker', '--queues', 'export'], env, (printed) => printed.stderr.includes('"event":"workers_started"'));
    try {
      await redis.kill();
      await until('the loss to be logged', async () => (output().stderr.includes('redis_connection_lost') ? true : undefined));
      // Several reconnect attempts fail meanwhile (they back off from 100 ms).
      await new Promise((r) => setTimeout(r, 1500));
      await redis.restart();
      await until('the reconnect to be logged', async () => (output().stderr.includes('redis_connection_restored') ? true : undefined));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    const { stderr } = output();
    const lines = stderr.split('\n').filter(Boolean);
    expect(lines.filter((l) => l.includes('"event":"redis_connection_lost"'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('"event":"redis_connection_restored"'))).toHaveLength(1);
    // Every line is a structured event or the worker's banner: no raw error, no stack frame.
    for (const line of lines) expect(line.startsWith('{') || line.startsWith('mintpipe worker:'), line).toBe(true);
    expect(stderr).not.toMatch(/ECONNREFUSED 127|\n\s+at /);
  }, 90_000);
});
