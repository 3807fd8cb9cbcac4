// `npm run mutation:integration`: the modules whose guarantees only the integration tests reach
// (Redis, the embedded engine, servers), run against vitest.mutation.config.ts. Slow (hours for the
// whole list on 2 cores): run one module at a time, e.g.
//   npm run mutation:integration -- --mutate src/queue/request-budget.ts
// Not part of CI. The unit-backed modules are in stryker.config.mjs (`npm run mutation`).
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  mutate: [
    'src/queue/request-budget.ts', // shared request budget (sliding window)
    'src/export/export-window.ts', // window load: the steps in order, fresh runs when the data moved
    'src/export/run-claim.ts', // window load: claim or resume the run
    'src/export/page-fetcher.ts', // window load: budgeted requests, pages fetched ahead
    'src/export/page-read.ts', // window load: what a page's answer means, its rows
    'src/export/page-window.ts', // window load: page, check, load
    'src/export/complete-window.ts', // window completion
    'src/export/enqueue.ts', // window jobs: run ids, priorities, one job per window in flight (real Redis; its unit tests run too)
    'src/export/batch-loader.ts', // window load: batches and checkpoints
    'src/warehouse/export-runs.ts', // window completion records
    'src/datasets/dataset-tables.ts', // a dataset's own tables: settings, the latest-complete view (test/datasets/dataset-tables.test.ts)
    'src/prompts/send-prompt.ts', // prompt send: at most once, ambiguous on doubt
    'src/prompts/prompt-store.ts', // prompt ledger
    'src/warehouse/read-only-query.ts', // SQL gate: entry point
    'src/warehouse/read-only-session.ts', // SQL gate: the session's catalog and the engine's errors
    'src/warehouse/engine-embedded.ts', // SQL gate: the embedded engine's readonly session
    'src/warehouse/engine-server.ts', // SQL gate: a server's readonly requests
    'src/warehouse/query-limits.ts', // SQL gate: timeout, rows, memory
    'src/warehouse/sql-ast.ts', // SQL gate: the engine's parse
    'src/logger.ts', // redaction in logs
  ],
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  // Integration tests start stacks (Redis queues, the embedded engine): give a mutant time before
  // calling it a timeout.
  timeoutMS: 60_000,
  timeoutFactor: 2,
  htmlReporter: { fileName: 'test-artifacts/mutation-integration/index.html' },
  jsonReporter: { fileName: 'test-artifacts/mutation-integration/mutation.json' },
};
