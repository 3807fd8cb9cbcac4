import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { claimDirectory, releaseClaim, waitForDirectory } from '../../src/warehouse/embedded-lock.js';
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
