import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { seedWarehouse } from '../support/warehouse-template.js';
import { fileTempDir } from '../support/test-env.js';

const dataDir = seedWarehouse(fileTempDir('one-shot'));

describe('one-shot commands sharing the embedded warehouse', () => {
  it('runs 4 concurrent queries with nothing else running: each waits its turn for the engine and all succeed', async () => {
    const env = { MINTPIPE_DATA_DIR: dataDir, LOG_LEVEL: '' };
    const results = await Promise.all(
      [1, 2, 3, 4].map((n) => runCli(['query', `SELECT ${n} AS n, count() AS runs FROM export_runs`, '--format', 'json'], env)),
    );
    for (const [i, result] of results.entries()) {
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual([{ n: i + 1, runs: 0 }]);
      // Waiting is said on one line of its own; nothing else reaches stderr (no engine lock error).
      for (const line of result.stderr.split('\n').filter(Boolean)) expect(line).toMatch(/^query: waiting up to 30s for the embedded warehouse \(in use by (pid \d+|another process)\)$/);
    }
    // They did overlap: some waited.
    expect(results.filter((r) => r.stderr.includes('waiting')).length).toBeGreaterThan(0);
  }, 120_000);
});
