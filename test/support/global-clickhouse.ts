/**
 * The `server` test project's warehouse: one ClickHouse HTTP interface over the embedded engine
 * (clickhouse-http.ts) for the whole run, its URL provided to that project's tests only (the
 * embedded project, run by the same vitest, must not see it). Tests isolate themselves with
 * databases of their own (test/support/engine.ts).
 */
import type { TestProject } from 'vitest/node';
import { startClickHouseHttp } from './clickhouse-http.js';
import startRedis from './global-redis.js';

declare module 'vitest' {
  export interface ProvidedContext {
    clickhouseUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The test Redis too, unless the run has started it already (a project's globalSetup replaces the root's).
  const stopRedis = process.env.REDIS_URL ? undefined : await startRedis();
  const server = await startClickHouseHttp();
  project.provide('clickhouseUrl', server.url);
  return async () => {
    await server.close();
    await stopRedis?.();
  };
}
