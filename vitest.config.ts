import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-redis.ts'],
    // Each test file runs in its own process: the embedded ClickHouse engine binds a process to one
    // data directory, and BullMQ workers / child processes are easier to reason about that way.
    pool: 'forks',
    isolate: true,
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
  },
});
