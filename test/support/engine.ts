/**
 * Which warehouse engine a test runs on: the embedded engine, or (in the `server` test project) a
 * ClickHouse server reached over HTTP, shared by the project's test files, each test in databases
 * of its own. Shared test bodies ask here instead of naming an engine.
 */
import { randomBytes } from 'node:crypto';
import { describe, inject, it } from 'vitest';
import type { OpenWarehouseOptions } from '../../src/warehouse/index.js';

/** The server's URL in the `server` project, undefined on the embedded engine. */
export function serverUrl(): string | undefined {
  try {
    const url = inject('clickhouseUrl' as never) as string | undefined;
    return url || undefined;
  } catch {
    // Outside a test run (a benchmark using the test helpers): no server project.
    return undefined;
  }
}

export const engineName = (): 'server' | 'embedded' => (serverUrl() ? 'server' : 'embedded');

/**
 * A database name for a test: `name` itself on the embedded engine (its data dir is the test's
 * own), `name` with a random suffix on the shared server.
 */
export function testDatabase(name: string): string {
  return serverUrl() ? `${name}_${randomBytes(4).toString('hex')}` : name;
}

/** openWarehouse's options for this engine: the server's URL when there is one. */
export function warehouseOptions<T extends Pick<OpenWarehouseOptions, 'database' | 'dataDir'>>(options: T): T & { url?: string } {
  const url = serverUrl();
  return url ? { ...options, url, database: testDatabase(options.database) } : options;
}

/** The environment a mintpipe process needs for this engine: CLICKHOUSE_URL and a database of its own on a server. */
export function engineEnv(database = 'mintpipe'): Record<string, string> {
  const url = serverUrl();
  return url ? { CLICKHOUSE_URL: url, CLICKHOUSE_DATABASE: testDatabase(database) } : {};
}

/**
 * `it` for a test the server project leaves out: its SQL is already run there by another test, or
 * it tests the embedded engine itself. (Defined only on the embedded engine, rather than skipped.)
 */
export function itEmbeddedOnly(name: string, fn: () => Promise<unknown> | unknown, timeout?: number): void {
  if (!serverUrl()) it(name, async () => void (await fn()), timeout);
}

/** `describe` for tests the server project leaves out (see itEmbeddedOnly). */
export function describeEmbeddedOnly(name: string, fn: () => void): void {
  if (!serverUrl()) describe(name, fn);
}
