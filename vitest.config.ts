import { statSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * One order for every run, a fresh clone's (as in CI) and a developer's second run alike: project by
 * project, as vitest runs them; in each, the whole-installation scenarios (test/system/: the longest,
 * in small files) first, so the run does not end waiting on them alone, then the other files largest
 * first. vitest's own order, once it has timings, is longest first: measured on one clone, that run
 * took 298 s against 255 s for the same tree in this order (docs/benchmarks.md#test-suite).
 */
class OneOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const system = (file: TestSpecification) => Number(file.moduleId.includes('/test/system/'));
    const sizes = new Map(files.map((file) => [file.moduleId, statSync(file.moduleId).size]));
    const size = (file: TestSpecification) => sizes.get(file.moduleId)!;
    return [...files].sort(
      (a, b) => a.project.name.localeCompare(b.project.name) || system(b) - system(a) || size(b) - size(a),
    );
  }
}

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
    globalSetup: ['test/support/global-redis.ts', 'test/support/global-warehouse.ts'],
    setupFiles: ['test/support/file-temp-dirs.ts'],
    // Test files run in child processes, each reused for file after file (isolate: false): a file
    // opens what it needs and closes it (test/support/test-stack.ts), and loading the modules once per
    // process instead of once per file took ~75 CPU-s off a run (docs/benchmarks.md#test-suite). The
    // embedded engine holds one data directory at a time per process: a file's stacks share one,
    // and the next file's opens another once the last stack closed.
    pool: 'forks',
    isolate: false,
    fileParallelism: true,
    // Most of a file's time is spent waiting on child processes, Redis and timers, not on this
    // process: four files at a time keep two cores busy where two left them a third idle.
    maxWorkers: 4,
    sequence: { sequencer: OneOrder },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
    // `vitest run` runs every project; `--project server` runs the server path alone.
    projects: [
      // Unit tests start no server and open no engine: they need no Redis either.
      { extends: true, test: { name: 'unit', include: ['test/**/*.unit.test.ts'], globalSetup: [] } },
      { extends: true, test: { name: 'embedded', include: ['test/**/*.test.ts'], exclude: ['test/**/*.unit.test.ts', 'node_modules/**'] } },
      {
        extends: true,
        test: { name: 'server', include: SERVER_TESTS, globalSetup: ['test/support/global-clickhouse.ts'] },
      },
    ],
  },
});
