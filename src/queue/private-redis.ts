/**
 * With no REDIS_URL, mintpipe runs a private `redis-server` with its data under
 * `$MINTPIPE_DATA_DIR/redis`: append-only on and `maxmemory-policy noeviction` (what BullMQ needs
 * to keep its jobs), listening on loopback with a generated password that only the owner of the
 * data dir can read (0600 files in a 0700 directory; never on a command line, where `ps` shows it
 * to every local user). Every mintpipe process using the same data dir
 * shares it: each holds a lease (a key with a short TTL it refreshes), and the last process to
 * let go shuts the server down, so a one-shot command leaves no process behind while a running
 * `start` keeps it up for the others.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { MintpipeError } from '../errors.js';
import { registerSecret, type Logger } from '../logger.js';

const LEASE_TTL_MS = 15_000;
const LEASE_REFRESH_MS = 5_000;
const LEASE_PATTERN = 'mintpipe:private-redis:lease:*';

/** redis-server is missing and cannot be installed here. */
export class RedisUnavailableError extends MintpipeError {
  override name = 'RedisUnavailableError';
}

export interface RedisHandle {
  url: string;
  /** True when this is mintpipe's private server (not REDIS_URL). */
  private: boolean;
  /** Drops this process's lease; the last process out stops the private server. */
  release(): Promise<void>;
}

interface ServerState {
  port: number;
  pid: number;
  /** Absent in state files of servers started before passwords (they still work until restarted). */
  password?: string;
}

function serverUrl(state: ServerState): string {
  return state.password ? `redis://:${state.password}@127.0.0.1:${state.port}` : `redis://127.0.0.1:${state.port}`;
}

/** Returns REDIS_URL, or the private server under `dataDir` (started, and installed, when needed). */
export async function acquireRedis(options: { url?: string; dataDir: string; logger: Logger }): Promise<RedisHandle> {
  if (options.url) return { url: options.url, private: false, release: async () => {} };
  const dir = join(options.dataDir, 'redis');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const url = await withStartLock(dir, async () => (await runningServer(dir)) ?? (await startServer(dir, options.logger)));
  return holdLease(url, options.logger);
}

async function runningServer(dir: string): Promise<string | undefined> {
  const statePath = join(dir, 'server.json');
  if (!existsSync(statePath)) return undefined;
  try {
    const state = JSON.parse(readFileSync(statePath, 'utf8')) as ServerState;
    registerSecret(state.password);
    const url = serverUrl(state);
    if (await answersPing(url)) return url;
  } catch {
    // A stale or torn state file: start a fresh server.
  }
  return undefined;
}

async function startServer(dir: string, logger: Logger): Promise<string> {
  const binary = findRedisServer(logger);
  const port = await freePort();
  const password = randomBytes(24).toString('hex');
  registerSecret(password);
  const configPath = join(dir, 'redis.conf');
  // Written fresh at every start: the password and port change, the data stays.
  writeFileSync(configPath, serverConfig(dir, port, password), { mode: 0o600 });
  chmodSync(configPath, 0o600);
  const child = spawn(
    binary,
    [configPath],
    // Its own process group: Ctrl-C on a one-shot command must not kill a server others share.
    { detached: true, stdio: 'ignore', cwd: dir },
  );
  child.unref();
  const url = serverUrl({ port, pid: 0, password });
  const deadline = Date.now() + 10_000;
  while (!(await answersPing(url))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new RedisUnavailableError(`the private redis-server did not start (see ${join(dir, 'redis.log')})`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  writeFileSync(join(dir, 'server.json'), JSON.stringify({ port, pid: child.pid ?? 0, password } satisfies ServerState), { mode: 0o600 });
  chmodSync(join(dir, 'server.json'), 0o600);
  logger.debug({ event: 'private_redis_started', port, dir }, 'started private redis-server');
  return url;
}

/** redis.conf of the private server: what BullMQ needs to keep jobs, reachable by its owner only. */
function serverConfig(dir: string, port: number, password: string): string {
  const quoted = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  return [
    `port ${port}`,
    'bind 127.0.0.1',
    'protected-mode yes',
    `dir ${quoted(dir)}`,
    'appendonly yes',
    'appendfsync everysec',
    'save ""',
    'maxmemory-policy noeviction',
    `requirepass ${password}`,
    'logfile redis.log',
    '',
  ].join('\n');
}

function findRedisServer(logger: Logger): string {
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0) return 'redis-server';
  const canInstall = process.getuid?.() === 0 && spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!canInstall) {
    throw new RedisUnavailableError(
      'redis-server is not installed: install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis) or set REDIS_URL',
    );
  }
  logger.info({ event: 'installing_redis' }, 'redis-server is missing: installing it with apt-get');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env });
  const install = spawnSync('apt-get', ['install', '-y', '-qq', 'redis-server'], { stdio: 'ignore', env });
  if (install.status !== 0) throw new RedisUnavailableError('apt-get install redis-server failed; install it yourself or set REDIS_URL');
  return 'redis-server';
}

async function holdLease(url: string, logger: Logger): Promise<RedisHandle> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  // Reconnect attempts after our own SHUTDOWN (or a restart) are expected; commands report real failures.
  redis.on('error', () => {});
  await redis.connect();
  const leaseKey = `mintpipe:private-redis:lease:${process.pid}:${Date.now()}`;
  await redis.set(leaseKey, '1', 'PX', LEASE_TTL_MS);
  const timer = setInterval(() => void redis.set(leaseKey, '1', 'PX', LEASE_TTL_MS).catch(() => {}), LEASE_REFRESH_MS);
  timer.unref();
  let released = false;
  return {
    url,
    private: true,
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      try {
        await redis.del(leaseKey);
        const others = await redis.keys(LEASE_PATTERN);
        if (others.length === 0) {
          logger.debug({ event: 'private_redis_stopping' }, 'last mintpipe process: stopping private redis-server');
          // SHUTDOWN closes the connection; with append-only on, the data is fsynced first.
          await redis.call('SHUTDOWN').catch(() => {});
        }
      } finally {
        redis.disconnect();
      }
    },
  };
}

async function withStartLock<T>(dir: string, body: () => Promise<T>): Promise<T> {
  const lockPath = join(dir, 'start.lock');
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      closeSync(openSync(lockPath, 'wx'));
      break;
    } catch {
      // Another process is starting the server; a lock older than 15 s was left by a crash.
      try {
        if (Date.now() - statSync(lockPath).mtimeMs > 15_000) rmSync(lockPath, { force: true });
      } catch {
        /* the lock went away between the calls */
      }
      if (Date.now() > deadline) throw new RedisUnavailableError(`timed out waiting for ${lockPath}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    return await body();
  } finally {
    rmSync(lockPath, { force: true });
  }
}

async function answersPing(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1000 });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}
