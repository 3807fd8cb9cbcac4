// StrykerJS (`npm run mutation`): mutates the modules that carry mintpipe's guarantees and whose
// unit tests (test/<area>/*.unit.test.ts, vitest.mutation-unit.config.ts) reach them, so each mutant costs seconds.
// Not part of CI; see docs/development.md for the scores. One module:
//   npm run mutation -- --mutate src/export/page-checks.ts
// Modules only the integration tests reach: stryker.integration.config.mjs (`npm run mutation:integration`).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  // One line per module; edit freely as modules move or split.
  mutate: [
    'src/export/page-checks.ts', // page checks: duplicates, totals, short and long pages
    'src/export/pager.ts', // offsets advance by the rows received
    'src/datasets/*.ts', // declarations, row mapping (findings instead of silent loss), quick checks
    '!src/datasets/dataset-tables.ts', // a dataset's own DDL: only a real warehouse tells (stryker.integration.config.mjs)
    'src/export/plan-cost.ts', // the request cost a plan announces
    'src/secrets/*.ts', // redaction of the configured key
    'src/warehouse/sql-gate-policy.ts', // SQL gate: allowlists
    'src/warehouse/sql-gate.ts', // SQL gate: the decision
    'src/prompts/poll-pace.ts', // when to poll an agent job again
    'src/prompts/prompt-transitions.ts', // the one table of prompt states and moves
    'src/prompts/plan-chains.ts', // chains: which rows wait for which
    'src/prompts/prompt-timing.ts', // the plain backoff
    'src/export/nightly-plan.ts', // which windows a night exports
    'config/project-id.ts', // a project id stays one segment of the API's URL path
    'src/warehouse/kill-until-found.ts', // a cancelled query is stopped though its KILL came first
  ],
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation-unit.config.ts', related: true },
  // Each mutant runs only the tests that reached it in the dry run.
  coverageAnalysis: 'perTest',
  concurrency: 2,
  // Unit tests take milliseconds: a mutant that loops is called a timeout quickly.
  timeoutMS: 10_000,
  timeoutFactor: 2,
  checkers: [],
  ignorePatterns: ['.data', '.scratch', 'dist', 'test-artifacts'],
  tempDirName: 'test-artifacts/stryker-tmp',
  cleanTempDir: true,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'test-artifacts/mutation/index.html' },
  jsonReporter: { fileName: 'test-artifacts/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, maxTestsToLog: 0 },
  thresholds: { high: 90, low: 80, break: null },
};
