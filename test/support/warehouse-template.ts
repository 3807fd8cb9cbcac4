/**
 * A migrated embedded warehouse made once per run, copied into the data dirs the stacks and CLI
 * envs make, so each does not apply every migration again (64 statements, ~0.4 CPU-s each time,
 * paid ~140 times a run). It is made by the real CLI on an empty data dir, as a user's first
 * command makes it; the tests of the migrations themselves (warehouse-schema, warehouse-upgrade)
 * and of a first run start from empty dirs of their own and never see it.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './run-cli.js';

/** Where the run's template is: set by the global setup, inherited by the test processes. */
const TEMPLATE_ENV = 'MINTPIPE_TEST_WAREHOUSE_TEMPLATE';

/** The engine's directory inside a data dir (as the configuration places it). */
const ENGINE_DIR = 'clickhouse';

/**
 * Makes the template with `mintpipe query` on an empty data dir; answers a function that removes it.
 * vitest runs a global setup once per project that has it: the first makes it, the others reuse it.
 */
export async function makeWarehouseTemplate(): Promise<() => void> {
  const existing = process.env[TEMPLATE_ENV];
  if (existing && existsSync(existing)) return () => undefined;
  const root = mkdtempSync(join(tmpdir(), 'mintpipe-warehouse-template-'));
  const dataDir = join(root, 'data');
  const query = await runCli(['query', 'SELECT 1 AS one'], { MINTPIPE_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
  if (query.code !== 0) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`the warehouse template could not be made (mintpipe query exited ${query.code}): ${query.stderr}`);
  }
  process.env[TEMPLATE_ENV] = join(dataDir, ENGINE_DIR);
  return () => {
    delete process.env[TEMPLATE_ENV];
    rmSync(root, { recursive: true, force: true });
  };
}

/**
 * Gives `dataDir` the run's migrated warehouse (database `mintpipe`) unless it has one already.
 * Without a template (a benchmark using the test helpers) the first open migrates, as always.
 */
export function seedWarehouse(dataDir: string): string {
  const template = process.env[TEMPLATE_ENV];
  const target = join(dataDir, ENGINE_DIR);
  if (template && existsSync(template) && !existsSync(target)) {
    // Private, as mintpipe makes a data dir it creates itself.
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    cpSync(template, target, { recursive: true, verbatimSymlinks: true });
  }
  return dataDir;
}
