/**
 * Checks, before a command relies on it, that Redis answers and takes our credentials: one
 * attempt, a bounded wait, and a one-line error naming the server without its password. Long-lived
 * connections wait forever for Redis to come back, which would make a mistyped REDIS_URL hang.
 */
import type { Redis } from 'ioredis';
import { MintpipeError } from '../errors.js';
import { connectionErrorReason, createRedisConnection, redisTarget } from './redis-connection.js';
import { describeRedisTarget, type RedisTarget } from '../../config/redis-url.js';

/** How long the probe waits for Redis to answer. */
const PROBE_TIMEOUT_MS = 5_000;

/** Redis did not answer. Exit code 1. */
export class RedisUnreachableError extends MintpipeError {
  override name = 'RedisUnreachableError';
  constructor(where: string, reason: string, options?: { cause?: unknown }) {
    super(`cannot reach Redis at ${where} (${reason}); start it or fix REDIS_URL`, options);
  }
}

/** Redis refused the credentials of REDIS_URL: a setting to fix, exit code 2. */
export class RedisAuthError extends MintpipeError {
  override name = 'RedisAuthError';
  override exitCode = 2;
  constructor(where: string, reason: string, options?: { cause?: unknown }) {
    super(`Redis at ${where} refused the credentials (${reason}); check the user and password in REDIS_URL`, options);
  }
}

/** Resolves once Redis at `url` answers PING with our credentials; throws one of the errors above. */
export async function probeRedis(url: string | RedisTarget): Promise<void> {
  const where = describeRedisTarget(redisTarget(url));
  const client: Redis = createRedisConnection(url, { connectionName: 'mintpipe-probe', maxRetriesPerRequest: 0, reconnect: false, lazyConnect: true });
  // connect() rejects with a bare "Connection is closed."; the reason came as an error event.
  let lastError: unknown;
  client.on('error', (err: unknown) => (lastError = err));
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisUnreachableError(where, `no answer within ${PROBE_TIMEOUT_MS / 1000}s`)), PROBE_TIMEOUT_MS);
  });
  try {
    await Promise.race([
      (async () => {
        await client.connect();
        await client.ping();
      })(),
      timeout,
    ]);
  } catch (err) {
    if (err instanceof RedisUnreachableError) throw err;
    const reason = connectionErrorReason(lastError ?? err);
    // Redis error replies start with their code (WRONGPASS, NOAUTH): the protocol's own verdict.
    const code = /^([A-Z]+)\b/.exec(reason)?.[1];
    if (code === 'WRONGPASS' || code === 'NOAUTH' || (code === 'ERR' && /AUTH|password/i.test(reason))) {
      throw new RedisAuthError(where, code === 'ERR' ? 'AUTH' : code, { cause: err });
    }
    throw new RedisUnreachableError(where, reason.replace(/^connect /, ''), { cause: err });
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}
