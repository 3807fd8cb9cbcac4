/**
 * With no REDIS_URL, mintpipe runs a private `redis-server` with its data under
 * `$MINTPIPE_DATA_DIR/redis`: append-only on and `maxmemory-policy noeviction` (what BullMQ needs
 * to keep its jobs). Only its owner reaches it: it listens on a Unix socket in a 0700 directory
 * (redis-socket.ts), never on a TCP port another local user could connect to or squat on, and it
 * requires a generated password kept in 0600 files (never on a command line, where `ps` shows it to
 * every local user). A server is used only when it is the one mintpipe started (its pid and start
 * time, recorded in server.json, still name a live process) and it refuses a connection without
 * the password: ioredis only warns when a server takes no password, so that is checked here.
 * Every mintpipe process of the data dir shares the server; the last one out stops it
 * (redis-holders.ts), so a one-shot command leaves no process behind while a running `start`
 * keeps it up for the others.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Redis, type RedisOptions } from 'ioredis';
import { registerSecret, type Logger } from '../logger.js';
import { isLive, processStartTicks, type ProcessIdentity } from '../process-identity.js';
import { privateDir, readOwnFile, writePrivateFile } from '../private-files.js';
import { redisTarget } from './redis-connection.js';
import { addHolder, dropHolder, liveHolders } from './redis-holders.js';
import { privateSocketPath } from './redis-socket.js';
import { withStartLock } from './redis-start-lock.js';
import { RedisUnavailableError } from './redis-unavailable-error.js';
import type { RedisTarget } from '../../config/redis-url.js';

export { RedisUnavailableError } from './redis-unavailable-error.js';

/** How long a server may take to answer (loading its append-only file) before it counts as failed. */
const READY_TIMEOUT_MS = 30_000;
/**
 * How long one PING (or the SHUTDOWN's connect) may go unanswered. A suspended server (SIGSTOP)
 * still accepts connections on its socket, so a connect succeeds and the reply never comes: without
 * a bound, every command of the data dir would wait on it forever.
 */
const ANSWER_TIMEOUT_MS = 1_000;
/** How long the last user out waits for the server to exit after SHUTDOWN (it fsyncs first). */
const STOP_TIMEOUT_MS = 10_000;
const HOLDERS_DIR = 'holders';
/** A connection that tries once and reports, for checks and SHUTDOWN. */
const oneShot: RedisOptions = { lazyConnect: true, enableReadyCheck: false, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1000 };

export interface RedisHandle {
  /** Where and how to connect: REDIS_URL's target, or the private server's socket and password. */
  target: RedisTarget;
  /** True when this is mintpipe's private server (not REDIS_URL). */
  private: boolean;
  /** Drops this process's record as a user; the last one out stops the private server. */
  release(): Promise<void>;
  /**
   * The same, at once, for a process about to exit without waiting (a second Ctrl-C): the last one
   * out signals the server to stop (it saves, as SHUTDOWN does) instead of asking and waiting.
   */
  releaseNow(): void;
}

/** server.json: the server mintpipe started, as a process, and how to reach it. */
interface ServerState extends ProcessIdentity {
  socket: string;
  password: string;
}

/** Returns REDIS_URL, or the private server under `dataDir` (started, and installed, when needed). */
export async function acquireRedis(options: { url?: string; dataDir: string; logger: Logger; readyTimeoutMs?: number }): Promise<RedisHandle> {
  if (options.url) return { target: redisTarget(options.url), private: false, release: async () => {}, releaseNow: () => {} };
  const { dataDir, logger } = options;
  const readyTimeoutMs = options.readyTimeoutMs ?? READY_TIMEOUT_MS;
  privateDir(dataDir, logger);
  const dir = join(dataDir, 'redis');
  privateDir(dir, logger);
  privateDir(join(dir, HOLDERS_DIR), logger);
  const socket = privateSocketPath(dir, dataDir);
  return withStartLock(dir, async () => {
    const state = (await runningServer(dir, socket, readyTimeoutMs)) ?? (await startServer(dir, socket, logger, readyTimeoutMs));
    return privateHandle(dir, state, addHolder(join(dir, HOLDERS_DIR)), logger);
  });
}

function privateHandle(dir: string, state: ServerState, holder: string, logger: Logger): RedisHandle {
  let released = false;
  return {
    target: { cluster: false, tls: false, nodes: [], socket: state.socket, password: state.password, db: 0 },
    private: true,
    async release() {
      if (released) return;
      released = true;
      await withStartLock(dir, async () => {
        dropHolder(holder);
        if (liveHolders(join(dir, HOLDERS_DIR)) > 0) return;
        // The server running now: it may have been restarted since this process joined it.
        const current = readState(dir);
        if (current && isLive(current)) await stopServer(current, logger);
      });
    },
    releaseNow() {
      if (released) return;
      released = true;
      dropHolder(holder);
      if (liveHolders(join(dir, HOLDERS_DIR)) > 0) return;
      const current = readState(dir);
      // SIGTERM: redis-server saves its data and exits, as on SHUTDOWN.
      if (current && isLive(current)) process.kill(current.pid, 'SIGTERM');
    },
  };
}

/** The server recorded in server.json, when that process still runs and proves to be ours. */
async function runningServer(dir: string, socket: string, readyTimeoutMs: number): Promise<ServerState | undefined> {
  const state = readState(dir);
  if (!state || !isLive(state)) return undefined;
  registerSecret(state.password);
  if (state.socket !== socket) {
    throw new RedisUnavailableError(`the private redis-server (pid ${state.pid}) listens on ${state.socket}, not ${socket} (was TMPDIR changed?): stop it first`);
  }
  await untilServesUs(state, dir, () => isLive(state), 'is running but does not answer: is it suspended?', readyTimeoutMs);
  return state;
}

function readState(dir: string): ServerState | undefined {
  return readRecord(dir).state;
}

/** server.json's server, or why there is none to trust. */
function readRecord(dir: string, othersMay: 'read' | 'nothing' = 'read'): { state?: ServerState; problem?: string } {
  try {
    // Only a record this user wrote: one another user planted would hand our work to their server.
    const { text, problem } = readOwnFile(join(dir, 'server.json'), { othersMay });
    if (text === undefined) return { problem: problem ?? 'is missing' };
    const state = JSON.parse(text) as Partial<ServerState>;
    // A server.json of an older mintpipe (a TCP port, no start time) names nothing to trust.
    const ok = typeof state.pid === 'number' && typeof state.socket === 'string' && typeof state.password === 'string';
    return ok ? { state: state as ServerState } : { problem: 'names no server of this mintpipe' };
  } catch {
    return { problem: 'cannot be read as a server record' };
  }
}

/**
 * Before a server is started: refuses when something already answers on the socket. In the 0700
 * `redis/` directory that is a server of this user, most likely the one mintpipe started whose
 * record went wrong (its mode widened, removed, rewritten): a second server over the same data
 * would take the socket from it, split the queues between the two and write the same AOF.
 */
async function refuseIfAnswered(dir: string, socket: string): Promise<void> {
  const answer = await ping(socket);
  if (!['PONG', 'NOAUTH', 'WRONGPASS', 'LOADING', 'TIMEOUT'].includes(answer)) return;
  const { state, problem } = readRecord(dir);
  const why = problem ?? `names pid ${state?.pid}, which is no longer the server it started`;
  throw new RedisUnavailableError(
    `a Redis server already answers on ${socket}, and ${join(dir, 'server.json')} (${why}) names no server mintpipe may use: no second redis-server is started over the same data; stop the one running there, then try again`,
  );
}

async function startServer(dir: string, socket: string, logger: Logger, readyTimeoutMs: number): Promise<ServerState> {
  await refuseIfAnswered(dir, socket);
  const binary = findRedisServer(logger);
  // The password of the server this one replaces, when its record is ours and no one else could read
  // it: a running start whose server was killed and started again by another command reconnects
  // with the password it has. A password others could read is replaced.
  const password = readRecord(dir, 'nothing').state?.password ?? randomBytes(24).toString('hex');
  registerSecret(password);
  const configPath = join(dir, 'redis.conf');
  // Written fresh at every start (the socket or the dir may have moved); the data stays.
  writePrivateFile(configPath, serverConfig(dir, socket, password));
  // Its own process group: Ctrl-C on a one-shot command must not kill a server others share.
  const child = spawn(binary, [configPath], { detached: true, stdio: 'ignore', cwd: dir });
  let failed = false;
  child.on('error', () => (failed = true));
  child.unref();
  const startTicks = child.pid === undefined ? undefined : processStartTicks(child.pid);
  const state: ServerState = { pid: child.pid ?? 0, ...(startTicks === undefined ? {} : { startTicks }), socket, password };
  // Recorded before it answers: a process that dies meanwhile leaves a record of a server to reuse.
  writePrivateFile(join(dir, 'server.json'), JSON.stringify(state));
  try {
    await untilServesUs(state, dir, () => !failed && child.exitCode === null, 'did not start', readyTimeoutMs);
  } catch (err) {
    if (child.exitCode === null) child.kill('SIGKILL');
    throw err;
  }
  logger.debug({ event: 'private_redis_started', redisPid: state.pid, socket, dir }, 'started private redis-server');
  return state;
}

/** redis.conf of the private server: what BullMQ needs to keep jobs, reachable by its owner only. */
function serverConfig(dir: string, socket: string, password: string): string {
  const quoted = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  return [
    'port 0',
    `unixsocket ${quoted(socket)}`,
    'unixsocketperm 700',
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

/**
 * Waits until the server on the socket takes our password and refuses a connection without it.
 * A server that answers without a password is not the one mintpipe started: refused at once.
 */
async function untilServesUs(state: ServerState, dir: string, running: () => boolean, failure: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const stranger = await ping(state.socket);
    if (stranger === 'PONG') {
      throw new RedisUnavailableError(`the Redis server on ${state.socket} answers without a password: it is not mintpipe's private server and will not be used`);
    }
    if (stranger === 'NOAUTH') {
      const owner = await ping(state.socket, state.password);
      if (owner === 'PONG') return;
      if (owner === 'WRONGPASS') throw new RedisUnavailableError(`the Redis server on ${state.socket} refuses the password recorded in ${join(dir, 'server.json')}: it will not be used`);
    }
    if (!running() || Date.now() > deadline) throw new RedisUnavailableError(`the private redis-server (pid ${state.pid}) ${failure} (see ${join(dir, 'redis.log')})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** PONG, or the code of the reply or error that came instead (NOAUTH, WRONGPASS, LOADING, ENOENT, TIMEOUT…). */
async function ping(socket: string, password?: string): Promise<string> {
  const client = new Redis({ ...oneShot, path: socket, ...(password === undefined ? {} : { password }) });
  client.on('error', () => {});
  try {
    return await withinAnswerTimeout(async () => {
      await client.connect();
      return await client.ping();
    });
  } catch (err) {
    const error = err as NodeJS.ErrnoException;
    return error.code ?? /^([A-Z]+)\b/.exec(error.message)?.[1] ?? 'ERR';
  } finally {
    client.disconnect();
  }
}

/** `step`, or a rejection with code TIMEOUT when it has not settled within ANSWER_TIMEOUT_MS. */
async function withinAnswerTimeout<T>(step: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('no answer'), { code: 'TIMEOUT' })), ANSWER_TIMEOUT_MS);
  });
  try {
    return await Promise.race([step(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * SHUTDOWN (with append-only on, the data is fsynced first), then waits for the process to exit,
 * still under the start lock: a process that starts next must not find it alive and about to go.
 */
async function stopServer(state: ServerState, logger: Logger): Promise<void> {
  logger.debug({ event: 'private_redis_stopping', redisPid: state.pid }, 'last mintpipe process: stopping private redis-server');
  const client = new Redis({ ...oneShot, path: state.socket, password: state.password });
  client.on('error', () => {});
  try {
    await withinAnswerTimeout(async () => {
      await client.connect();
      // SHUTDOWN closes the connection instead of answering.
      await client.call('SHUTDOWN').catch(() => {});
    });
  } catch {
    /* not answering: the wait below tells */
  } finally {
    client.disconnect();
  }
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (isLive(state) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
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
