import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWarehouse, WarehouseClosedError } from '../../src/warehouse/index.js';
import { DEFAULT_QUERY_LIMITS } from '../../src/warehouse/query-limits.js';
import { rejection } from '../support/wait.js';
import { fileTempDir } from '../support/test-env.js';

const root = fileTempDir('wh-close');

/**
 * From close() to the process gone: the close's own bound (under a second) and a loaded machine's
 * slack. A query left running would keep the process for minutes (warehouse-closer.ts).
 */
const PROMPT_EXIT_MS = 10_000;
/** A child still there this long after close() has hung: it is killed and the test fails. */
const HUNG_MS = 30_000;

interface Closed {
  stdout: string;
  warnings: Array<Record<string, unknown>>;
  /** From the child's `closing` line to its exit; undefined when it hung and was killed. */
  exitMs: number | undefined;
  code: number | null;
}

/** Runs warehouse-closer.ts in a data dir of its own and waits for it to end, at most HUNG_MS after it closes. */
function closeUnder(what: 'select' | 'insert' | 'stream'): Promise<Closed> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/warehouse-closer.ts', mkdtempSync(join(root, `${what}-`)), what], {
    cwd: join(import.meta.dirname, '..', '..'),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let closingAt: number | undefined;
  let hung: NodeJS.Timeout | undefined;
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    if (closingAt === undefined && stdout.includes('closing\n')) {
      closingAt = Date.now();
      hung = setTimeout(() => child.kill('SIGKILL'), HUNG_MS);
    }
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      clearTimeout(hung);
      const exitMs = signal === 'SIGKILL' || closingAt === undefined ? undefined : Date.now() - closingAt;
      const warnings = stderr
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      if (exitMs === undefined || code !== 0) process.stderr.write(`warehouse-closer ${what}: ${stderr}\n`);
      resolve({ stdout, warnings, exitMs, code });
    });
  });
}

describe('closing the embedded warehouse under a query in flight', () => {
  it.each([
    ['a pipeline SELECT', 'select'],
    ['an INSERT … SELECT', 'insert'],
    ['a read-only query streaming its result', 'stream'],
  ] as const)('a process that closes it under %s exits promptly, the query rejected as cancelled', async (_, what) => {
    const closed = await closeUnder(what);
    expect(closed.stdout).toContain('running\nclosing\n');
    expect(closed.exitMs).toBeLessThan(PROMPT_EXIT_MS);
    expect(closed.code).toBe(0);
    expect(closed.stdout).toMatch(/settled rejected .*Query was cancelled/);
    expect(closed.warnings).toEqual([expect.objectContaining({ event: 'warehouse.close_in_flight', running: 1, left: 0 })]);
  });

});

describe('a closed embedded warehouse', () => {
  it('refuses a pipeline query with one line naming the warehouse', async () => {
    const dataDir = mkdtempSync(join(root, 'after-'));
    const wh = await openWarehouse({ dataDir, database: 'mintpipe_close_test' });
    await wh.close();
    const error = await rejection(wh.client.query({ query: 'SELECT 1', format: 'JSONEachRow' }));
    expect(error).toBeInstanceOf(WarehouseClosedError);
    expect((error as Error).message).toBe(`the embedded warehouse in ${dataDir} is closed: no query runs on it after close()`);
  });

  it('refuses a read-only session instead of opening the engine again', async () => {
    const dataDir = mkdtempSync(join(root, 'after-'));
    const wh = await openWarehouse({ dataDir, database: 'mintpipe_close_test' });
    await wh.close();
    await expect(wh.readOnlySession(DEFAULT_QUERY_LIMITS)).rejects.toThrow(WarehouseClosedError);
  });
});
