import { defineConfig } from 'vitest/config';

/**
 * The tests that run a second time against a ClickHouse server over HTTP (the `server` project):
 * those that execute distinct SQL — migrations, one export per pagination kind with a crash resume,
 * the prompt ledger, the read-only query gate, status and dashboard reads.
 */
const SERVER_TESTS = [
  'test/warehouse/warehouse-upgrade.test.ts',
  'test/warehouse/warehouse-schema.test.ts',
  'test/export/export-datasets.test.ts',
  'test/export/export-crash.test.ts',
  'test/warehouse/warehouse-prompts.test.ts',
  'test/prompts/prompts-redis-loss.test.ts',
  'test/warehouse/warehouse-read-only-query.test.ts',
  'test/ops/status-cli.test.ts',
  'test/ops/dashboard-api.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-redis.ts'],
    // Each test file runs in its own process: the embedded ClickHouse engine binds a process to one
    // data directory, and BullMQ workers / child processes are easier to reason about that way.
    pool: 'forks',
    isolate: true,
    fileParallelism: true,
    // Most of a file's time is spent waiting on child processes, Redis and timers, not on this
    // process: four files at a time keep two cores busy where two left them a third idle.
    maxWorkers: 4,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
    // `vitest run` runs every project; `--project server` runs the server path alone.
    projects: [
      // Unit tests start no server and open no engine: one process per worker runs them all, each file
      // importing what the files before it already loaded (a process per file spent most of their time).
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.unit.test.ts'], isolate: false, globalSetup: [] },
      },
      { extends: true, test: { name: 'embedded', include: ['test/**/*.test.ts'], exclude: ['test/**/*.unit.test.ts', 'node_modules/**'] } },
      {
        extends: true,
        test: { name: 'server', include: SERVER_TESTS, globalSetup: ['test/support/global-clickhouse.ts'] },
      },
    ],
  },
});
