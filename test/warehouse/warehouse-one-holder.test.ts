/**
 * One start or worker per embedded warehouse, decided at once: a second one on a held data dir
 * exits 1 before any banner, naming the holder; one held by a one-shot command is waited for; and a
 * one-shot command leaves the warehouse to a start or worker that is starting up.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { processStartTicks } from '../../src/process-identity.js';
import { openWarehouse, WarehouseLockedError } from '../../src/warehouse/index.js';
import { runCli, startCli, type RunningCli } from '../support/run-cli.js';
import { until } from '../support/wait.js';
import { fileTempDir } from '../support/test-env.js';

const children: ChildProcess[] = [];
const running: RunningCli[] = [];

afterAll(async () => {
  for (const cli of running) {
    if (cli.child.exitCode === null) {
      cli.child.kill('SIGTERM');
      await cli.exited;
    }
  }
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

function envFor(dataDir: string): Record<string, string> {
  return {
    REDIS_URL: process.env.REDIS_URL!,
    MINTPIPE_QUEUE_PREFIX: `t1h${randomBytes(4).toString('hex')}`,
    MINTPIPE_DATA_DIR: dataDir,
    MINTLIFY_API_KEY: 'mint_one_holder_test_key',
    MINTLIFY_API_URL: 'http://127.0.0.1:9',
    LOG_LEVEL: 'warn',
  };
}

const workerUp = (printed: { stderr: string }) => printed.stderr.includes('mintpipe worker:');

describe('one process per embedded warehouse', () => {
  it('a second start on a data dir held by a live worker exits 1 at once, naming it, with no banner', async () => {
    const env = envFor(fileTempDir('one-holder'));
    const worker = await startCli(['worker'], env, workerUp, 120_000);
    running.push(worker);
    const second = await runCli(['start', '--no-dashboard'], env, 60_000);
    expect(second.code).toBe(1);
    expect(second.stdout).toBe('');
    expect(second.stderr).toBe(
      `mintpipe: the embedded warehouse in ${join(env.MINTPIPE_DATA_DIR!, 'clickhouse')} is in use by worker pid ${worker.child.pid} (one start or worker per data dir): stop it, or give this start another MINTPIPE_DATA_DIR or a CLICKHOUSE_URL\n`,
    );
  });

  it('a worker waits for a one-shot command that holds the warehouse, says so, and starts once it lets go', async () => {
    const dataDir = fileTempDir('one-holder');
    const holder = await holderOf(dataDir, 'warehouse');
    const worker = await startCli(['worker'], envFor(dataDir), (printed) => printed.stderr.includes('waiting for the embedded warehouse'), 120_000);
    running.push(worker);
    expect(worker.output().stderr).toContain(`in use by pid ${holder.pid}`);
    expect(worker.child.exitCode).toBeNull();
    holder.stdin!.end();
    await until('the worker to start once the holder let go', async () => {
      if (workerUp(worker.output())) return true;
      if (worker.child.exitCode !== null) throw new Error(`the worker exited (${worker.child.exitCode}) instead: ${worker.output().stderr}`);
      return undefined;
    }, 120_000, 100);
  });

  it('a worker waiting for a one-shot command that never lets go (suspended) stops on one SIGTERM, saying so', async () => {
    const dataDir = fileTempDir('one-holder');
    const holder = await holderOf(dataDir, 'warehouse');
    const worker = await startCli(['worker'], envFor(dataDir), (printed) => printed.stderr.includes('waiting for the embedded warehouse'), 120_000);
    running.push(worker);
    worker.child.kill('SIGTERM');
    const code = await Promise.race([worker.exited.then(() => worker.child.exitCode), new Promise((resolve) => setTimeout(() => resolve('still running'), 10_000))]);
    expect(code).toBe(0);
    expect(worker.output().stderr).toContain(`stopped (SIGTERM) while waiting for the embedded warehouse, in use by pid ${holder.pid}`);
    expect(worker.output().stderr).not.toContain('    at ');
    holder.stdin!.end();
  });

  it('a one-shot command does not take the warehouse from a worker that is starting up', async () => {
    const dataDir = fileTempDir('one-holder');
    const starting = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(starting);
    mkdirSync(join(dataDir, 'clickhouse'), { recursive: true });
    writeFileSync(join(dataDir, 'clickhouse', 'mintpipe.claim'), `${starting.pid} ${processStartTicks(starting.pid!)} worker\n`);
    const opening = openWarehouse({ database: 'mintpipe_one_holder', dataDir });
    await expect(opening).rejects.toBeInstanceOf(WarehouseLockedError);
    await expect(opening).rejects.toMatchObject({ holderPid: starting.pid });
  });

  it('a query beside a worker that is starting up waits for its gateway, says so, and answers through it', async () => {
    const dataDir = fileTempDir('one-holder');
    const holder = await holderOf(dataDir, 'starting');
    const query = await startCli(['query', 'SELECT 41 + 1 AS answer', '--format', 'csv'], envFor(dataDir), waiting, 60_000);
    running.push(query);
    expect(query.output().stderr).toBe(`query: waiting up to 30s for the worker starting up on this data dir (pid ${holder.pid}) to serve the warehouse\n`);
    holder.stdin!.write('serve\n');
    expect(await query.exited).toBe(0);
    expect(query.output().stdout).toBe('"answer"\n42\n');
  });

  it('status beside a worker that is starting up reads the warehouse through its gateway once it serves', async () => {
    const dataDir = fileTempDir('one-holder');
    const holder = await holderOf(dataDir, 'starting');
    const status = await startCli(['status', '--format', 'json'], envFor(dataDir), waiting, 60_000);
    running.push(status);
    expect(status.output().stderr).toBe(`status: waiting up to 30s for the worker starting up on this data dir (pid ${holder.pid}) to serve the warehouse\n`);
    holder.stdin!.write('serve\n');
    expect(await status.exited).toBe(0);
    expect(JSON.parse(status.output().stdout).datasets).toMatchObject({ readable: true, via: 'gateway' });
  });
});

const waiting = (printed: { stderr: string }) => printed.stderr.includes('waiting up to 30s');

/**
 * A process holding the data dir (test/support/warehouse-holder.ts): `warehouse`, a one-shot command
 * that has the engine until its stdin closes; `starting`, a worker starting up, which has claimed the
 * dir and opens the warehouse and serves its gateway once sent `serve`.
 */
async function holderOf(dataDir: string, mode: 'warehouse' | 'starting'): Promise<ChildProcess> {
  const holder = spawn(process.execPath, ['--import', 'tsx', 'test/support/warehouse-holder.ts', dataDir, mode], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(holder);
  const up = mode === 'starting' ? 'claimed' : 'ready';
  await new Promise<void>((resolve, reject) => {
    holder.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes(up) && resolve());
    holder.once('exit', (code) => reject(new Error(`holder exited with ${code}`)));
  });
  return holder;
}
