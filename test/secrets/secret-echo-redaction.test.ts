import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../support/api-scripted-server.js';
import { keySpellings, revealsKey } from '../support/key-spellings.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { runCli } from '../support/run-cli.js';
import { fileTempDir } from '../support/test-env.js';

const KEY = 'mint_EchoedSecretPart0123456789abcdefXYZ';
const SECRET_PART = KEY.slice('mint_'.length);
const REDIS_USER = 'echo-user-7f3a9c';
const REDIS_PASSWORD = 'r3dis!Pass@word-5e8d1b';
const CLICKHOUSE_PASSWORD = 'cl1ckhouse-Pass#9c2e4f';
const SECRETS = { 'the key without its mint_ prefix': SECRET_PART, 'the REDIS_URL user': REDIS_USER, 'the REDIS_URL password': REDIS_PASSWORD, CLICKHOUSE_PASSWORD };

/** An upstream that answers every request 401 and echoes what it should not have. */
const ECHO = `invalid key ${Object.values(keySpellings(SECRET_PART)).slice(0, 6).join(' | ')}; seen with ${REDIS_USER}:${REDIS_PASSWORD} and ${CLICKHOUSE_PASSWORD}`;

let upstream: ScriptedServer;
let redis: TestRedis;
let env: Record<string, string>;

/** Every file under `dir`, as text (the AOF, the RDB); a rewrite's temp file may vanish as it is read. */
function filesUnder(dir: string): string {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .map((path) => {
      try {
        return statSync(path).isFile() ? readFileSync(path, 'latin1') : '';
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
        throw err;
      }
    })
    .join('\n');
}

/** Every key of the installation's prefix with its value, as text. */
async function redisContents(client: Redis, prefix: string): Promise<string> {
  const out: string[] = [];
  for (const key of await client.keys(`*${prefix}*`)) {
    const type = await client.type(key);
    if (type === 'hash') out.push(key, JSON.stringify(await client.hgetall(key)));
    else if (type === 'string') out.push(key, (await client.get(key)) ?? '');
    else if (type === 'list') out.push(key, ...(await client.lrange(key, 0, -1)));
    else if (type === 'set') out.push(key, ...(await client.smembers(key)));
    else if (type === 'zset') out.push(key, ...(await client.zrange(key, 0, -1)));
    else if (type === 'stream') out.push(key, JSON.stringify(await client.xrange(key, '-', '+')));
  }
  return out.join('\n');
}

function expectNoSecret(where: string, text: string): void {
  for (const [what, secret] of Object.entries(SECRETS)) expect(revealsKey(text, secret), `${what} in ${where}`).toBe(false);
}

beforeAll(async () => {
  upstream = await startScriptedServer({ fallback: { status: 401, body: { error: ECHO } } });
  // The user is made at start (not with ACL SETUSER), so the only way its password reaches the AOF is through mintpipe.
  redis = await startTestRedis(['--appendonly', 'yes', '--appendfsync', 'always', '--maxmemory-policy', 'noeviction', '--user', REDIS_USER, 'on', `>${REDIS_PASSWORD}`, '~*', '&*', '+@all']);
  env = {
    REDIS_URL: `redis://${REDIS_USER}:${encodeURIComponent(REDIS_PASSWORD)}@127.0.0.1:${redis.port}`,
    MINTLIFY_API_KEY: KEY,
    MINTLIFY_API_URL: upstream.url,
    CLICKHOUSE_PASSWORD,
    MINTPIPE_QUEUE_PREFIX: `t${randomBytes(4).toString('hex')}`,
    MINTPIPE_ANALYTICS_RATE: 'off',
    MINTPIPE_MESSAGE_RATE: 'off',
    LOG_LEVEL: 'debug',
    MINTPIPE_DATA_DIR: fileTempDir('echo'),
  };
});
afterAll(async () => {
  await upstream?.close();
  await redis?.stop();
});

describe('an upstream 401 that echoes the key without its prefix and the configured credentials', () => {
  it('shows them nowhere: export --wait, status, export_runs.error, the queue keys and the AOF', async () => {
    const exported = await runCli(['export', '--project', 'echo', '--from', '2026-10-01', '--to', '2026-10-02', '--wait'], env);
    expect(exported.code).toBe(1);
    expect(exported.stderr).toMatch(/failed visitors echo 2026-10-01\.\.2026-10-02: .*HTTP 401.*\[REDACTED\]/);
    expect(upstream.requests.length).toBeGreaterThan(0);
    expectNoSecret('export --wait output', `${exported.stdout}${exported.stderr}`);

    for (const format of ['text', 'json']) {
      const status = await runCli(['status', '--format', format], { ...env, LOG_LEVEL: 'warn' });
      expect(status.code).toBe(0);
      expect(status.stdout).toContain('[REDACTED]');
      expectNoSecret(`status --format ${format}`, `${status.stdout}${status.stderr}`);
    }

    const runs = await runCli(['query', "SELECT error FROM export_runs WHERE project_id = 'echo'", '--format', 'json'], { ...env, LOG_LEVEL: 'warn' });
    expect(runs.code).toBe(0);
    const errors = (JSON.parse(runs.stdout) as Array<{ error: string }>).map((r) => r.error);
    expect(errors.some((e) => e.includes('[REDACTED]'))).toBe(true);
    expectNoSecret('export_runs.error', errors.join('\n'));

    const client = new Redis(env.REDIS_URL!);
    try {
      const stored = await redisContents(client, env.MINTPIPE_QUEUE_PREFIX!);
      expect(stored).toContain('[REDACTED]');
      expectNoSecret('the queue keys', stored);
      await client.call('BGREWRITEAOF').catch(() => undefined);
    } finally {
      client.disconnect();
    }
    const aof = filesUnder(redis.dir);
    expect(aof).toContain('[REDACTED]');
    expectNoSecret('the Redis data files', aof);
  }, 180_000);
});

describe('credentials in the API URL', () => {
  for (const [what, url] of [
    ['a user and password', 'http://alice:UrlSecret-1234@127.0.0.1:9'],
    ['a URL that does not parse', 'http://alice:UrlSecret-1234@127.0.0.1:notaport'],
  ]) {
    it(`are refused at start with one line naming MINTLIFY_API_URL and not the password (${what})`, async () => {
      const result = await runCli(['status'], { ...env, MINTLIFY_API_URL: url });
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/^mintpipe: MINTLIFY_API_URL: /);
      expect(result.stderr).not.toContain('UrlSecret-1234');
    });
  }
});

describe('credentials in CLICKHOUSE_URL', () => {
  it('are not printed when the server echoes them in an error', async () => {
    const clickhouse = await startScriptedServer({ fallback: { status: 500, body: 'Code: 516. DB::Exception: bob-ch-user-41: Authentication failed: password Ch-Url-Secret-77 is incorrect. (AUTHENTICATION_FAILED)' } });
    try {
      const result = await runCli(['query', 'SELECT 1'], { ...env, LOG_LEVEL: 'warn', CLICKHOUSE_URL: `http://bob-ch-user-41:Ch-Url-Secret-77@127.0.0.1:${clickhouse.port}` });
      expect(result.code).not.toBe(0);
      expect(clickhouse.requests.length).toBeGreaterThan(0);
      expect(result.stderr).toContain('[REDACTED]');
      for (const secret of ['bob-ch-user-41', 'Ch-Url-Secret-77']) expect(revealsKey(`${result.stdout}${result.stderr}`, secret)).toBe(false);
    } finally {
      await clickhouse.close();
    }
  }, 60_000);
});
