/**
 * A redis-server of a test's own (on a free port, data in a temp dir), for tests that kill,
 * restart or misconfigure Redis; the shared test Redis (global-redis.ts) is never touched.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitForRedis } from './ports.js';

export interface TestRedis {
  port: number;
  dir: string;
  /** `redis://[:password@]127.0.0.1:port`. */
  url: string;
  /** SIGKILLs the server (no shutdown save, as a crash). */
  kill(): Promise<void>;
  /** Starts it again on the same port and data dir. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestRedis(args: string[] = [], options: { password?: string; port?: number; dir?: string } = {}): Promise<TestRedis> {
  const port = options.port ?? (await freePort());
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'mintpipe-own-redis-'));
  const auth = options.password ? `:${options.password}@` : '';
  const url = `redis://${auth}127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', ...(options.password ? ['--requirepass', options.password] : []), ...args],
      { stdio: 'ignore' },
    );
    await waitForRedis(url, 10_000);
  };
  const kill = async () => {
    const current = child;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise((resolve) => current.once('exit', resolve));
    current.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    port,
    dir,
    url,
    kill,
    restart: start,
    async stop() {
      await kill();
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
