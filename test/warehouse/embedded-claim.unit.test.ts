import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { processStartTicks } from '../../src/process-identity.js';
import { claimDirectory, releaseClaim, waitForDirectory, withOpenLock } from '../../src/warehouse/embedded-lock.js';
import { WarehouseLockedError } from '../../src/warehouse/errors.js';
import { fileTempDir } from '../support/test-env.js';

const scratch = fileTempDir('claim');

describe('a start or worker claiming the embedded warehouse directory', () => {
  it('creates the data dir and clickhouse/ as 0700 whatever the umask, never open to others for a moment', () => {
    const dataDir = join(scratch, 'fresh');
    const path = join(dataDir, 'clickhouse');
    const umask = process.umask(0);
    try {
      claimDirectory(path);
    } finally {
      process.umask(umask);
    }
    expect((statSync(dataDir).mode & 0o777).toString(8)).toBe('700');
    expect((statSync(path).mode & 0o777).toString(8)).toBe('700');
    releaseClaim(path);
  });
});

describe('two starts claiming one directory at once', () => {
  it('never takes over the claim of a live start: the later one is told who has it', () => {
    const path = join(scratch, 'contested', 'clickhouse');
    mkdirSync(path, { recursive: true });
    // Written by another start between this one's look for a holder and its claim.
    const claim = join(path, 'mintpipe.claim');
    const theirs = `${process.ppid} ${processStartTicks(process.ppid)} start\n`;
    writeFileSync(claim, theirs);
    expect(claimDirectory(path)).toEqual({ pid: process.ppid, command: 'start' });
    expect(readFileSync(claim, 'utf8')).toBe(theirs);
  });

  it('takes over a claim whose process is gone', () => {
    const path = join(scratch, 'left', 'clickhouse');
    mkdirSync(path, { recursive: true });
    const claim = join(path, 'mintpipe.claim');
    writeFileSync(claim, `${process.ppid} 1 start\n`);
    expect(claimDirectory(path)).toBeUndefined();
    expect(readFileSync(claim, 'utf8')).toMatch(new RegExp(`^${process.pid} `));
    releaseClaim(path);
    expect(existsSync(claim)).toBe(false);
  });
});

describe('a command waiting for a directory another process holds', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('tries again until its timeout and no later, then gives up naming the holder', async () => {
    vi.useFakeTimers();
    const started = Date.now();
    const tries: number[] = [];
    const waiting = waitForDirectory({ timeoutMs: 1_000 }, async () => {
      tries.push(Date.now() - started);
      throw new WarehouseLockedError('/data/clickhouse', 4242);
    }).catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(5_000);
    const error = await waiting;
    expect(error).toBeInstanceOf(WarehouseLockedError);
    expect((error as Error).message).toMatch(/\(pid 4242\) \(gave up after waiting 1s\)/);
    expect(Math.max(...tries)).toBeGreaterThanOrEqual(900);
    expect(Math.max(...tries)).toBeLessThanOrEqual(1_000);
  });
});

describe('a command opening a directory whose open lock a live process keeps (suspended mid-open)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives up after its wait with a one-line error naming that process, and leaves the lock to it', async () => {
    vi.useFakeTimers();
    const path = join(scratch, 'opening', 'clickhouse');
    mkdirSync(path, { recursive: true });
    // A live process that is not this one (the test runner), as a holder stopped by SIGSTOP is.
    const lock = join(path, 'mintpipe.open.lock');
    writeFileSync(lock, `${process.ppid} ${processStartTicks(process.ppid)} start\n`);
    const body = vi.fn();
    const opening = withOpenLock(path, body).catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(31_000);
    const error = await opening;
    expect(error).toBeInstanceOf(WarehouseLockedError);
    expect((error as Error).message).toBe(
      `the embedded warehouse at ${path} is in use by another mintpipe process (pid ${process.ppid}) (gave up after waiting 30s); stop it or set CLICKHOUSE_URL`,
    );
    expect(body).not.toHaveBeenCalled();
    expect(existsSync(lock)).toBe(true);
  });
});
