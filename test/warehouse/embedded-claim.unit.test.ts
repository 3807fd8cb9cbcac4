import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimDirectory, releaseClaim } from '../../src/warehouse/embedded-lock.js';
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
