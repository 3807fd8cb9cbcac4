/**
 * The environment of a mintpipe a test runs: the test Redis, the test API key, a random queue
 * prefix, a temp data dir, quiet logs, and the engine's settings (engine.ts: a database of its own
 * on the shared server). Every stack's env is made here, and so is the env of a CLI process a test
 * starts without a stack.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engineEnv } from './engine.js';
import { seedWarehouse } from './warehouse-template.js';

export const TEST_API_KEY = 'mint_test_secret_key_0123456789';

/** Pipelines at full speed: no analytics or message budget. */
export const UNPACED_ENV: Readonly<Record<string, string>> = { MINTPIPE_ANALYTICS_RATE: 'off', MINTPIPE_MESSAGE_RATE: 'off' };

/** A fresh queue prefix: `name` and 8 random hex digits. */
export function randomPrefix(name = 't'): string {
  return `${name}${randomBytes(4).toString('hex')}`;
}

/** A new temp dir named after `name`; whoever asked removes it. */
export function makeTempDir(name = 'test'): string {
  return mkdtempSync(join(tmpdir(), `mintpipe-${name}-`));
}

/** The env of a test's mintpipe on `dataDir` under `prefix`; `extra` wins. */
export function baseEnv(parts: { prefix: string; dataDir: string; engine?: Record<string, string> }, extra: Record<string, string> = {}): Record<string, string> {
  return {
    REDIS_URL: process.env.REDIS_URL!,
    MINTLIFY_API_KEY: TEST_API_KEY,
    MINTPIPE_QUEUE_PREFIX: parts.prefix,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    MINTPIPE_DATA_DIR: parts.dataDir,
    ...(parts.engine ?? engineEnv()),
    ...extra,
  };
}

/** Dirs made for a bare env (a CLI process's, no stack to own them): removed once the file's tests ran. */
const envDirs = new Set<string>();

/**
 * Removes the file's temp dirs: after every test file (test/support/file-temp-dirs.ts, a setup
 * file, so it runs for each file of a process; a hook registered here would run only for the first
 * file that loaded this module). Outside a test run (a benchmark) they are left to the system.
 */
export function removeFileTempDirs(): void {
  for (const dir of envDirs) rmSync(dir, { recursive: true, force: true });
  envDirs.clear();
}

/**
 * The env of a CLI process a test starts without a stack: a fresh prefix, and a fresh data dir
 * (removed after the file's tests) unless `settings` name one.
 */
export function bareEnv(settings: Record<string, string>, name = 't'): Record<string, string> {
  return baseEnv({ prefix: randomPrefix(name), dataDir: settings.MINTPIPE_DATA_DIR ?? seedWarehouse(fileTempDir(name)) }, settings);
}

/** A new temp dir of the test file's, removed once its tests ran (one that outlives a stack). */
export function fileTempDir(name = 'test'): string {
  const dir = makeTempDir(name);
  envDirs.add(dir);
  return dir;
}

/** bareEnv, unpaced: the env most CLI tests start `mintpipe` with. */
export function testEnv(extra: Record<string, string> = {}): Record<string, string> {
  return bareEnv({ ...UNPACED_ENV, ...extra });
}
