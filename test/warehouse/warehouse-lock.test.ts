import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { until } from '../support/wait.js';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MintpipeError } from '../../src/errors.js';
import { openForQueries, openWarehouse, WarehouseLockedError, WarehouseProcessBoundError, type Warehouse } from '../../src/warehouse/index.js';
import { fileTempDir } from '../support/test-env.js';

// This process opens only this directory; the child processes hold it in turn.
const dataDir = fileTempDir('wh-lock');
const enginePath = join(dataDir, 'clickhouse');
const children: ChildProcess[] = [];
const opened: Warehouse[] = [];

afterEach(async () => {
  for (const wh of opened.splice(0)) await wh.close();
});

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Starts a process that holds the directory; resolves once it does. */
async function holder(mode: 'warehouse' | 'engine'): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/warehouse-holder.ts', dataDir, mode], {
    cwd: join(import.meta.dirname, '..', '..'),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`holder exited early with ${code}: ${out}`)));
  });
  return child;
}

/** Lets the holder close the engine and exit cleanly. */
async function release(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.stdin!.end();
  await exited;
}

/** The pid our pid file names (its first field; the second is that process's start time). */
function pidFilePid(): string | undefined {
  return readFileSync(join(enginePath, 'mintpipe.pid'), 'utf8').trim().split(' ')[0];
}

/** A live process that has nothing to do with mintpipe, to stand on a recorded pid. */
function unrelatedProcess(): ChildProcess {
  const child = spawn('sleep', ['120'], { stdio: 'ignore' });
  children.push(child);
  return child;
}

async function open(): Promise<Warehouse> {
  const wh = await openWarehouse({ database: 'mintpipe_lock_test', dataDir });
  opened.push(wh);
  return wh;
}

describe('embedded warehouse lock', () => {
  it('refuses with a one-line error naming the pid when another mintpipe process holds the directory', async () => {
    const child = await holder('warehouse');
    expect(pidFilePid()).toBe(String(child.pid));
    const opening = openWarehouse({ database: 'mintpipe_lock_test', dataDir });
    await expect(opening).rejects.toBeInstanceOf(WarehouseLockedError);
    await expect(opening).rejects.toBeInstanceOf(MintpipeError);
    await expect(opening).rejects.toThrow(
      `the embedded warehouse at ${enginePath} is in use by another mintpipe process (pid ${child.pid}); stop it or set CLICKHOUSE_URL`,
    );
    await release(child);
    expect(existsSync(join(enginePath, 'mintpipe.pid'))).toBe(false);
  });

  it('names the holder from the engine when a process holds the directory without a pid file', async () => {
    const child = await holder('engine');
    expect(existsSync(join(enginePath, 'mintpipe.pid'))).toBe(false);
    const error = await openWarehouse({ database: 'mintpipe_lock_test', dataDir }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(WarehouseLockedError);
    expect((error as WarehouseLockedError).holderPid).toBe(child.pid);
    await release(child);
  });

  it('opens after the holder was killed, its pid file and engine status file left behind', async () => {
    const child = await holder('warehouse');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    expect(existsSync(join(enginePath, 'mintpipe.pid'))).toBe(true);
    const wh = await open();
    expect(wh.location).toBe(enginePath);
  });

  it('opens once the holder is gone, ignoring a pid file the engine no longer backs', async () => {
    // A pid file naming a live process (our parent) but no engine lock behind it: stale.
    writeFileSync(join(enginePath, 'mintpipe.pid'), `${process.ppid}\n`);
    const wh = await open();
    expect(wh.kind).toBe('embedded');
    expect(pidFilePid()).toBe(String(process.pid));
  });

  it('opens at once when the pid file and the engine status file name a reused pid (a live unrelated process)', async () => {
    // A crash leaves both files behind; the pid then goes to a process started after the crash.
    const crashed = await holder('warehouse');
    const exited = new Promise((resolve) => crashed.once('exit', resolve));
    crashed.kill('SIGKILL');
    await exited;
    await new Promise((r) => setTimeout(r, 1100)); // the reused pid starts a second after the engine opened
    const stranger = unrelatedProcess();
    const status = readFileSync(join(enginePath, 'status'), 'utf8');
    writeFileSync(join(enginePath, 'status'), status.replace(/PID:\s*\d+/, `PID: ${stranger.pid}`));
    const [, ticks] = readFileSync(join(enginePath, 'mintpipe.pid'), 'utf8').trim().split(' ');
    writeFileSync(join(enginePath, 'mintpipe.pid'), `${stranger.pid} ${ticks}\n`);
    const startedAt = Date.now();
    const wh = await openWarehouse({ database: 'mintpipe_lock_test', dataDir, lockWait: { timeoutMs: 60_000, onWait: () => expect.fail('waited on a reused pid') } });
    opened.push(wh);
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(pidFilePid()).toBe(String(process.pid));
  });

  it('lets one process open the same directory twice, keeping its pid file until the last close', async () => {
    const first = await open();
    const second = await open();
    await first.close();
    expect(existsSync(join(enginePath, 'mintpipe.pid'))).toBe(true);
    const [row] = await (await second.client.query({ query: 'SELECT 1 AS one', format: 'JSONEachRow' })).json<{ one: number }>();
    expect(row?.one).toBe(1);
    await second.close();
    expect(existsSync(join(enginePath, 'mintpipe.pid'))).toBe(false);
  });

  it('refuses a second directory in a process that has one open, or is opening one', async () => {
    const otherDir = fileTempDir('wh-lock-other');
    try {
      const first = open();
      const concurrent = openWarehouse({ database: 'mintpipe_lock_test', dataDir: otherDir });
      await expect(concurrent).rejects.toBeInstanceOf(WarehouseProcessBoundError);
      await first;
      const opening = openWarehouse({ database: 'mintpipe_lock_test', dataDir: otherDir });
      await expect(opening).rejects.toBeInstanceOf(WarehouseProcessBoundError);
      await expect(opening).rejects.toThrow(`this process already has the one at ${enginePath} open`);
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it('takes over from a holder that was SIGKILLed but not yet reaped (a zombie still answers kill -0)', async () => {
    // A shell that starts the holder in the background, then becomes `sleep`: the holder's parent
    // never reaps it, so once killed it stays a zombie, as under a slow supervisor.
    const shell = spawn('sh', ['-c', `${process.execPath} --import tsx test/support/warehouse-holder.ts ${dataDir} warehouse forever & exec sleep 120`], {
      cwd: join(import.meta.dirname, '..', '..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(shell);
    const holderPid = await new Promise<number>((resolve, reject) => {
      let out = '';
      shell.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const pid = /ready (\d+)/.exec(out)?.[1];
        if (pid) resolve(Number(pid));
      });
      shell.once('exit', (code) => reject(new Error(`holder shell exited early with ${code}: ${out}`)));
    });
    expect(pidFilePid()).toBe(String(holderPid));
    process.kill(holderPid, 'SIGKILL');
    await until('the holder to be a zombie', async () => (/\) Z /.test(readFileSync(`/proc/${holderPid}/stat`, 'utf8')) ? true : undefined));
    // Still "alive" to kill(pid, 0), and still named by the pid file and the engine's status file.
    expect(() => process.kill(holderPid, 0)).not.toThrow();
    const wh = await open();
    expect(wh.location).toBe(enginePath);
    expect(pidFilePid()).toBe(String(process.pid));
    await wh.close();
    shell.kill('SIGKILL');
  });

  it('waits for a live holder when asked, says so once, and opens as soon as the holder lets go', async () => {
    const child = await holder('warehouse');
    const waits: Array<number | undefined> = [];
    const opening = openWarehouse({ database: 'mintpipe_lock_test', dataDir, lockWait: { timeoutMs: 60_000, onWait: (pid) => waits.push(pid) } });
    await until('the opener to say it waits', async () => (waits.length > 0 ? true : undefined));
    await release(child);
    const wh = await opening;
    opened.push(wh);
    expect(waits).toEqual([child.pid]);
  });

  it('holds the directory for queries under the same lock: refused while another process has it, waits when asked', async () => {
    const child = await holder('warehouse');
    await expect(openForQueries({ database: 'mintpipe_lock_test', dataDir })).rejects.toThrow(`in use by another mintpipe process (pid ${child.pid})`);
    const waits: Array<number | undefined> = [];
    const opening = openForQueries({ database: 'mintpipe_lock_test', dataDir, lockWait: { timeoutMs: 60_000, onWait: (pid) => waits.push(pid) } });
    await until('the query opener to say it waits', async () => (waits.length > 0 ? true : undefined));
    await release(child);
    const target = await opening;
    expect(waits).toEqual([child.pid]);
    expect(target?.location).toBe(enginePath);
    expect(pidFilePid()).toBe(String(process.pid));
    await target?.close();
    expect(existsSync(join(enginePath, 'mintpipe.pid'))).toBe(false);
  });

  it('gives up waiting after its timeout with a one-line error naming the holder', async () => {
    const child = await holder('warehouse');
    const waits: Array<number | undefined> = [];
    const error = await openWarehouse({ database: 'mintpipe_lock_test', dataDir, lockWait: { timeoutMs: 400, onWait: (pid) => waits.push(pid) } }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(WarehouseLockedError);
    expect((error as Error).message).toMatch(new RegExp(`in use by another mintpipe process \\(pid ${child.pid}\\) \\(gave up after waiting \\d+s\\); stop it or set CLICKHOUSE_URL$`));
    expect((error as Error).message).not.toContain('\n');
    expect(waits).toEqual([child.pid]);
    await release(child);
  });
});
