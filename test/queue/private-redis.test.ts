import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { isLive, processStartTicks } from '../../src/process-identity.js';
import { acquireRedis, RedisUnavailableError } from '../../src/queue/private-redis.js';
import { createRedisConnection } from '../../src/queue/redis-connection.js';
import { checkRedisPersistence } from '../../src/queue/redis-persistence.js';
import { alive } from '../support/processes.js';
import { rejection, until } from '../support/wait.js';
import { fileTempDir } from '../support/test-env.js';

const logger = createLogger({ level: 'silent' });

interface ServerJson {
  pid: number;
  startTicks?: string;
  socket: string;
  password: string;
}

function serverJson(dataDir: string): ServerJson {
  return JSON.parse(readFileSync(join(dataDir, 'redis', 'server.json'), 'utf8')) as ServerJson;
}

/** When a test fails, the server it checks is not left running. */
function killLeftoverServer(dataDir: string): void {
  try {
    const server = serverJson(dataDir);
    if (isLive(server)) process.kill(server.pid, 'SIGKILL');
  } catch {
    /* never started */
  }
}

function newDataDir(): string {
  return fileTempDir('private-redis');
}

/** The TCP ports `pid` listens on: its sockets' inodes matched against /proc/net/tcp{,6} LISTEN rows. */
function tcpListenPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    const link = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
    if (link) inodes.add(link[1]!);
  }
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const row of readFileSync(table, 'utf8').trim().split('\n').slice(1)) {
      const cols = row.trim().split(/\s+/);
      if (cols[3] === '0A' && inodes.has(cols[9]!)) ports.push(parseInt(cols[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

/** Another local user's redis-server listening on the socket path the private server uses. */
/**
 * With `record` in the data dir's server.json (then `plant`ed), a command refuses in one line saying
 * why the record is not trusted (`why`): it neither uses the squatter (no holder recorded, its data
 * untouched) nor starts a second server over the socket it holds. Stops the squatter.
 */
async function expectNotUsed(
  dataDir: string,
  squat: { child: ChildProcess; client: Redis },
  record: { pid: number; startTicks?: string; socket: string; password: string },
  why: string,
  plant: (file: string) => void = () => {},
): Promise<void> {
  const file = join(dataDir, 'redis', 'server.json');
  writeFileSync(file, JSON.stringify(record), { mode: 0o600 });
  plant(file);
  try {
    const refusal = await rejection(acquireRedis({ dataDir, logger }));
    expect(refusal).toBeInstanceOf(RedisUnavailableError);
    expect((refusal as Error).message).toBe(
      `a Redis server already answers on ${record.socket}, and ${file} (${why}) names no server mintpipe may use: no second redis-server is started over the same data; stop the one running there, then try again`,
    );
    expect(readdirSync(join(dataDir, 'redis', 'holders'))).toEqual([]);
    expect(await squat.client.get('planted')).toBe('by someone else');
    expect(alive(squat.child.pid!)).toBe(true);
  } finally {
    squat.client.disconnect();
    squat.child.kill('SIGKILL');
  }
}

async function squatter(socket: string, password?: string): Promise<{ child: ChildProcess; client: Redis }> {
  const child = spawn(
    'redis-server',
    ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '700', '--dir', fileTempDir('squatter'), '--save', '', ...(password ? ['--requirepass', password] : [])],
    { stdio: 'ignore' },
  );
  const client = new Redis({ path: socket, password, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => {});
  await until('the squatter to answer', async () => ((await client.connect().then(() => client.ping()).catch(() => undefined)) === 'PONG' ? true : undefined), 10_000);
  return { child, client };
}

describe('private redis-server', () => {
  it('is shared by processes of one data dir and stopped by the last one out, leaving no process behind', async () => {
    const dataDir = newDataDir();
    const first = await acquireRedis({ dataDir, logger });
    const second = await acquireRedis({ dataDir, logger });
    expect(second.target).toEqual(first.target);
    const server = serverJson(dataDir);
    expect(isLive(server)).toBe(true);

    const client = createRedisConnection(first.target, 'test');
    await client.set('kept', '1');
    const appendOnly = (await client.config('GET', 'appendonly')) as string[];
    expect(appendOnly[1]).toBe('yes');
    client.disconnect();

    await first.release();
    expect(isLive(server)).toBe(true);
    await second.release();
    // The last one out waits for the server to exit before it returns (a zombie has exited).
    expect(isLive(server)).toBe(false);

    // The next command starts it again on the same data: append-only kept what was written.
    const third = await acquireRedis({ dataDir, logger });
    const again = createRedisConnection(third.target, 'test');
    expect(await again.get('kept')).toBe('1');
    again.disconnect();
    await third.release();
  });

  it('lets go at once for a process that exits without waiting (a second Ctrl-C): the last one out stops the server, keeping its data', async () => {
    const dataDir = newDataDir();
    const first = await acquireRedis({ dataDir, logger });
    const second = await acquireRedis({ dataDir, logger });
    const server = serverJson(dataDir);
    const client = createRedisConnection(first.target, 'test');
    await client.set('kept', '2');
    client.disconnect();

    first.releaseNow();
    expect(readdirSync(join(dataDir, 'redis', 'holders'))).toHaveLength(1);
    expect(isLive(server)).toBe(true);
    second.releaseNow();
    expect(readdirSync(join(dataDir, 'redis', 'holders'))).toEqual([]);
    await until('the server to stop', async () => (isLive(server) ? undefined : true), 10_000);

    const third = await acquireRedis({ dataDir, logger });
    const again = createRedisConnection(third.target, 'test');
    expect(await again.get('kept')).toBe('2');
    again.disconnect();
    await third.release();
  });

  it('uses REDIS_URL as given and never stops a shared server', async () => {
    const handle = await acquireRedis({ url: process.env.REDIS_URL!, dataDir: '/nonexistent', logger });
    expect(handle.private).toBe(false);
    await handle.release();
    const client = new Redis(process.env.REDIS_URL!);
    expect(await client.ping()).toBe('PONG');
    client.disconnect();
  });

  it('listens on a Unix socket in its 0700 directory and on no TCP port, keeps AOF with noeviction, and answers only to the generated password its owner alone can read', async () => {
    const dataDir = newDataDir();
    const handle = await acquireRedis({ dataDir, logger });
    try {
      const dir = join(dataDir, 'redis');
      const state = serverJson(dataDir);
      expect(state.password).toMatch(/^[0-9a-f]{48}$/);
      expect(state.startTicks).toBe(processStartTicks(state.pid));
      expect(handle.target).toMatchObject({ socket: join(dir, 'redis.sock'), password: state.password, nodes: [] });
      expect(tcpListenPorts(state.pid)).toEqual([]);

      const owner = createRedisConnection(handle.target, 'test');
      expect(await owner.config('GET', 'port')).toEqual(['port', '0']);
      expect(await checkRedisPersistence(owner)).toMatchObject({ durable: true, problems: [], nodes: [{ node: `unix:${state.socket}` }] });
      owner.disconnect();

      // Even a process that reaches the socket gets nothing without the password.
      const stranger = new Redis({ path: state.socket, maxRetriesPerRequest: 0, lazyConnect: true });
      stranger.on('error', () => {});
      await expect(stranger.get('anything')).rejects.toThrow(/NOAUTH/);
      stranger.disconnect();

      // The password is in files only the owner can read, never on the command line `ps` shows.
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, 'holders')).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, 'server.json')).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, 'redis.conf')).mode & 0o777).toBe(0o600);
      expect(statSync(state.socket).mode & 0o777).toBe(0o700);
      expect(readFileSync(`/proc/${state.pid}/cmdline`, 'utf8')).not.toContain(state.password);
    } finally {
      await handle.release();
    }
  });

  it('puts its socket in a 0700 directory of its own under the temp dir when the data dir is too deep for a socket path', async () => {
    const dataDir = join(newDataDir(), 'a-directory-name-long-enough-to-push-the-socket-path-past-the-limit-of-107-bytes');
    expect(Buffer.byteLength(join(dataDir, 'redis', 'redis.sock'))).toBeGreaterThan(107);
    const handle = await acquireRedis({ dataDir, logger });
    try {
      const socket = handle.target.socket!;
      expect(socket).toMatch(new RegExp(`^${tmpdir()}/mintpipe-${process.getuid!()}-[0-9a-f]{16}/redis\\.sock$`));
      const dir = statSync(join(socket, '..'));
      expect([dir.mode & 0o777, dir.uid]).toEqual([0o700, process.getuid!()]);
      const owner = createRedisConnection(handle.target, 'test');
      expect(await owner.ping()).toBe('PONG');
      owner.disconnect();
    } finally {
      await handle.release();
    }
  });

  it('refuses, in one line, a server on its socket that answers without the password, and never uses it', async () => {
    const dataDir = newDataDir();
    mkdirSync(join(dataDir, 'redis'), { mode: 0o700 });
    const socket = join(dataDir, 'redis', 'redis.sock');
    const { child, client } = await squatter(socket);
    try {
      // Recorded as if mintpipe had started it: only the password check can tell.
      const record = { pid: child.pid!, startTicks: processStartTicks(child.pid!), socket, password: 'a'.repeat(48) };
      writeFileSync(join(dataDir, 'redis', 'server.json'), JSON.stringify(record), { mode: 0o600 });
      const refusal = await rejection(acquireRedis({ dataDir, logger }));
      expect(refusal).toBeInstanceOf(RedisUnavailableError);
      expect((refusal as Error).message).toBe(`the Redis server on ${socket} answers without a password: it is not mintpipe's private server and will not be used`);
      expect(readdirSync(join(dataDir, 'redis', 'holders'))).toEqual([]);
      expect(alive(child.pid!)).toBe(true);
    } finally {
      client.disconnect();
      child.kill('SIGKILL');
    }
  });

  it('never reuses a recorded server whose pid now names another process, even one that takes the recorded password', async () => {
    const dataDir = newDataDir();
    mkdirSync(join(dataDir, 'redis'), { mode: 0o700 });
    const socket = join(dataDir, 'redis', 'redis.sock');
    const password = 'b'.repeat(48);
    const { child, client } = await squatter(socket, password);
    await client.set('planted', 'by someone else');
    // The pid of a server that stopped, now another process's: its start time differs.
    await expectNotUsed(dataDir, { child, client }, { pid: child.pid!, startTicks: '1', socket, password }, `names pid ${child.pid}, which is no longer the server it started`);
  });

  for (const [what, why, plant] of [
    ['another user wrote', 'is owned by uid 65534, not 0', (file: string) => chownSync(file, 65534, 65534)],
    ['other users may write', 'has mode 0666, writable by other local users', (file: string) => chmodSync(file, 0o666)],
  ] as const) {
    it(`never trusts a record ${what}, even of a live server that takes the recorded password`, async () => {
      const dataDir = newDataDir();
      mkdirSync(join(dataDir, 'redis'), { mode: 0o700 });
      const socket = join(dataDir, 'redis', 'redis.sock');
      const password = 'c'.repeat(48);
      const { child, client } = await squatter(socket, password);
      await client.set('planted', 'by someone else');
      // Everything right (pid, start time, socket, password) but who wrote it.
      await expectNotUsed(dataDir, { child, client }, { pid: child.pid!, startTicks: processStartTicks(child.pid!), socket, password }, why, plant);
    });
  }

  it('never starts a second server over the data of one still running when server.json no longer vouches for it', async () => {
    const dataDir = newDataDir();
    const first = await acquireRedis({ dataDir, logger });
    const server = serverJson(dataDir);
    onTestFinished(() => {
      if (isLive(server)) process.kill(server.pid, 'SIGKILL');
      killLeftoverServer(dataDir);
    });
    const client = createRedisConnection(first.target, 'test');
    await client.set('queued', 'by the running start');
    // A recursive chmod (g+w) leaves the record one mintpipe must not trust: the server it named still runs.
    chmodSync(join(dataDir, 'redis', 'server.json'), 0o664);
    const refusal = await rejection(acquireRedis({ dataDir, logger }));
    expect(refusal).toBeInstanceOf(RedisUnavailableError);
    expect((refusal as Error).message).toBe(
      `a Redis server already answers on ${server.socket}, and ${join(dataDir, 'redis', 'server.json')} (has mode 0664, writable by other local users) names no server mintpipe may use: no second redis-server is started over the same data; stop the one running there, then try again`,
    );
    // Still one server, the running one, with what was queued in it.
    expect(serverJson(dataDir).pid).toBe(server.pid);
    expect(await client.get('queued')).toBe('by the running start');
    client.disconnect();
    await first.release();
  });

  it('comes back with the same password when another process restarts it after it was killed, so a running holder reconnects', async () => {
    const dataDir = newDataDir();
    const running = await acquireRedis({ dataDir, logger });
    onTestFinished(() => killLeftoverServer(dataDir));
    // The running start's connection: it reconnects on its own, with the password it was given.
    const client = createRedisConnection(running.target, 'test');
    await client.set('queued', 'before the crash');
    const killed = serverJson(dataDir);
    process.kill(killed.pid, 'SIGKILL');
    await until('the killed server to be gone', async () => (isLive(killed) ? undefined : true), 10_000);

    // A one-shot command comes along and starts the server again.
    const oneShot = await acquireRedis({ dataDir, logger });
    expect(serverJson(dataDir).pid).not.toBe(killed.pid);
    expect(oneShot.target.password).toBe(running.target.password);
    await oneShot.release();
    expect(await until('the running holder to be served again', async () => (await client.get('queued').catch(() => undefined)) ?? undefined, 10_000)).toBe('before the crash');
    client.disconnect();
    await running.release();
  });

  it('comes back with a new password when the record of the killed server was readable by others', async () => {
    const dataDir = newDataDir();
    const first = await acquireRedis({ dataDir, logger });
    onTestFinished(() => killLeftoverServer(dataDir));
    const killed = serverJson(dataDir);
    process.kill(killed.pid, 'SIGKILL');
    await until('the killed server to be gone', async () => (isLive(killed) ? undefined : true), 10_000);
    chmodSync(join(dataDir, 'redis', 'server.json'), 0o644);
    const next = await acquireRedis({ dataDir, logger });
    expect(next.target.password).not.toBe(first.target.password);
    await next.release();
    await first.release();
  });

  it('stays up while a holder is too busy to run a timer for longer than a lease would last, while another process comes and goes', async () => {
    const dataDir = newDataDir();
    // A child whose event loop is blocked for 20 s, as a process serialising a huge result is.
    const holder = spawn(process.execPath, ['--import', 'tsx', 'test/support/redis-holder.ts', dataDir, '20000'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<number | null>((resolve) => holder.once('exit', resolve));
    try {
      let printed = '';
      holder.stdout!.on('data', (d: Buffer) => (printed += d.toString()));
      await until('the holder to hold the server', async () => (printed.includes('ready') ? true : undefined), 30_000);
      const server = serverJson(dataDir);
      // Past the 15 s a lease refreshed by a timer lived: a real wait, because the stalled holder's
      // own clock is what is under test.
      await new Promise((resolve) => setTimeout(resolve, 16_000));
      const oneShot = await acquireRedis({ dataDir, logger });
      expect(oneShot.target.socket).toBe(server.socket);
      await oneShot.release();
      expect(isLive(server)).toBe(true);

      // The holder, once it can run again, is the last one out.
      expect(await exited).toBe(0);
      expect(isLive(server)).toBe(false);
    } finally {
      if (holder.exitCode === null) holder.kill('SIGKILL');
      killLeftoverServer(dataDir);
    }
  }, 60_000);

  it('gives up, in one line naming its pid, on a recorded server that is suspended (SIGSTOP), and lets go of it in bounded time', async () => {
    const dataDir = newDataDir();
    const first = await acquireRedis({ dataDir, logger });
    const server = serverJson(dataDir);
    process.kill(server.pid, 'SIGSTOP');
    // Also when the test times out (a hang is the failure under test): no suspended server is left.
    onTestFinished(() => {
      process.kill(server.pid, 'SIGCONT');
      killLeftoverServer(dataDir);
    });
    const refusal = await rejection(acquireRedis({ dataDir, logger, readyTimeoutMs: 1_500 }));
    expect(refusal).toBeInstanceOf(RedisUnavailableError);
    expect((refusal as Error).message).toBe(
      `the private redis-server (pid ${server.pid}) is running but does not answer: is it suspended? (see ${join(dataDir, 'redis', 'redis.log')})`,
    );
    // The last one out asks a server that cannot answer to stop: it waits its bounded while, then returns.
    await first.release();
    expect(isLive(server)).toBe(true);
  }, 30_000);

  it('is not kept up by a holder that was killed: the next process out stops it and removes the dead record', async () => {
    const dataDir = newDataDir();
    const holder = spawn(process.execPath, ['--import', 'tsx', 'test/support/redis-holder.ts', dataDir, '60000'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let printed = '';
    holder.stdout!.on('data', (d: Buffer) => (printed += d.toString()));
    try {
      await until('the holder to hold the server', async () => (printed.includes('ready') ? true : undefined), 30_000);
      const exited = new Promise((resolve) => holder.once('exit', resolve));
      holder.kill('SIGKILL');
      await exited;
      const server = serverJson(dataDir);
      const oneShot = await acquireRedis({ dataDir, logger });
      await oneShot.release();
      expect(isLive(server)).toBe(false);
      expect(readdirSync(join(dataDir, 'redis', 'holders'))).toEqual([]);
    } finally {
      if (holder.exitCode === null) holder.kill('SIGKILL');
      killLeftoverServer(dataDir);
    }
  });
});
