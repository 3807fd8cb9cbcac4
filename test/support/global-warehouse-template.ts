/**
 * The embedded project's migrated warehouse: made once for the run, as a user's first
 * `mintpipe query` makes one (the bin in a process of its own: the embedded engine binds a process
 * to one data directory, and vitest's own process must stay free of it), and named by
 * MINTPIPE_TEST_WAREHOUSE_TEMPLATE to every test file (forked test processes inherit the
 * environment). A test stack's fresh data dir starts as a copy of it (shared-data-dir.ts), so a
 * file's stack opens a current warehouse instead of applying every migration again; the tests of
 * migrations open dirs of their own and still apply them.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const TEMPLATE_ENV = 'MINTPIPE_TEST_WAREHOUSE_TEMPLATE';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'mintpipe-test-template-'));
  const made = spawnSync(process.execPath, ['bin/mintpipe.js', 'query', 'SELECT 1', '--format', 'csv'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, MINTPIPE_DATA_DIR: dir, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (made.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`the tests' migrated warehouse could not be made (mintpipe query exit ${made.status}): ${made.stderr.trim()}`);
  }
  process.env[TEMPLATE_ENV] = dir;
  return () => {
    delete process.env[TEMPLATE_ENV];
    rmSync(dir, { recursive: true, force: true });
  };
}
