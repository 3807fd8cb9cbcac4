/**
 * A local Redis Cluster of 3 masters (no replicas) for tests: three `redis-server
 * --cluster-enabled yes` on free ports (each also needs its bus port, port + 10000), joined with
 * `redis-cli --cluster create … --cluster-yes`. AOF and noeviction on, as mintpipe expects.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { waitForRedis } from './ports.js';

export interface TestCluster {
  ports: number[];
  /** `redis+cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3`. */
  url: string;
  stop(): Promise<void>;
}

/** A port whose cluster bus port (+10000) is free too. */
async function clusterPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if (taken.has(port) || !(await isFree(port)) || !(await isFree(port + 10_000))) continue;
    taken.add(port);
    return port;
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export async function startTestCluster(): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'mintpipe-cluster-'));
  const taken = new Set<number>();
  const ports = [await clusterPort(taken), await clusterPort(taken), await clusterPort(taken)];
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) {
      children.push(
        spawn(
          'redis-server',
          [
            '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '',
            '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`,
            '--appendonly', 'yes', '--appendfilename', `appendonly-${port}.aof`, '--appenddirname', `aof-${port}`,
            '--maxmemory-policy', 'noeviction',
          ],
          { stdio: 'ignore' },
        ),
      );
      await waitForRedis(`redis://127.0.0.1:${port}`, 10_000);
    }
    const create = spawnSync('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'], { encoding: 'utf8' });
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`);
    // Every node must agree that all slots are served before clients can rely on it.
    const deadline = Date.now() + 20_000;
    for (const port of ports) {
      const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
      try {
        await client.connect();
        while (!(await client.cluster('INFO')).includes('cluster_state:ok')) {
          if (Date.now() > deadline) throw new Error(`cluster node ${port} never reached cluster_state:ok`);
          await new Promise((r) => setTimeout(r, 100));
        }
      } finally {
        client.disconnect();
      }
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { ports, url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`, stop };
}
