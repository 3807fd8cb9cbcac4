/**
 * The test run StrykerJS uses for each mutant (`npm run mutation`): the normal config without the
 * tests that exercise mintpipe only through a spawned CLI or worker process, because a child
 * process never sees the mutant under test (they would only cost time), nor the browser test.
 */
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

const SEES_NO_MUTANTS = [
  'test/cli/cli-export.test.ts',
  'test/ops/dashboard-browser.test.ts',
  'test/ops/dashboard-command.test.ts',
  'test/ops/dashboard-compose.test.ts',
  'test/export/export-crash.test.ts',
  'test/cli/lifecycle.test.ts',
  'test/prompts/prompts-cli.test.ts',
  'test/prompts/prompts-crash.test.ts',
  'test/warehouse/warehouse-lock.test.ts',
];

const config = mergeConfig(
  base,
  defineConfig({
    plugins: [
      {
        // Stryker's vitest runner asks for the threads pool, but the embedded ClickHouse engine
        // holds one data directory at a time per process: test files run in processes. Each keeps
        // a process of its own here, as before `npm test` shared them (not tried under Stryker).
        name: 'mintpipe-mutation-forks',
        configureVitest({ project }) {
          project.config.pool = 'forks';
          project.config.isolate = true;
        },
      },
    ],
    test: { exclude: ['**/node_modules/**', ...SEES_NO_MUTANTS] },
  }),
);
// Mutants are judged on the embedded engine alone: the server project repeats the same test bodies.
config.test = { ...config.test, projects: undefined, include: ['test/**/*.test.ts'] };
export default config;
