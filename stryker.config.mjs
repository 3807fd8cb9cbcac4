// StrykerJS (`npm run mutation`): mutates the modules that carry mintpipe's guarantees and runs the
// tests that import them (vitest.mutation.config.ts). Slow, so not part of CI; see the README's
// contributor section for the scores. Run one module: npm run mutation -- --mutate src/export/page-checks.ts
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  // One line per module; edit freely as modules move or split.
  mutate: [
    'src/queue/request-budget.ts', // shared request budget (sliding window)
    'src/export/page-checks.ts', // page checks: duplicates, totals, short and long pages
    'src/export/pager.ts', // offsets advance by the rows received
    'src/export/export-window.ts', // window load
    'src/export/batch-loader.ts', // window load: batches and checkpoints
    'src/warehouse/export-runs.ts', // window completion records
    'src/prompts/send-prompt.ts', // prompt send: at most once, ambiguous on doubt
    'src/prompts/prompt-store.ts', // prompt ledger
    'src/warehouse/read-only-query.ts', // SQL gate: entry point
    'src/warehouse/read-only-session.ts', // SQL gate: the engine's readonly session
    'src/warehouse/query-limits.ts', // SQL gate: timeout, rows, memory
    'src/warehouse/sql-gate.ts', // SQL gate: the decision
    'src/warehouse/sql-gate-policy.ts', // SQL gate: allowlists
    'src/warehouse/sql-ast.ts', // SQL gate: the engine's parse
    'src/logger.ts', // redaction in logs
    'src/secrets/*.ts', // redaction of the configured key
  ],
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  // Each mutant runs only the tests that reached it in the dry run.
  coverageAnalysis: 'perTest',
  concurrency: 2,
  // Integration tests start stacks (Redis queues, the embedded engine): give a mutant time before
  // calling it a timeout.
  timeoutMS: 60_000,
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
