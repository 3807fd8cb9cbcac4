/**
 * The test run of `npm run mutation` (stryker.config.mjs): only the unit tests (test/<area>/*.unit.test.ts), which
 * need no Redis, no embedded engine and no servers. A mutant of a pure module costs a second or
 * two this way, where the integration suite would cost minutes per mutant on a shared machine.
 * Modules that only the integration tests reach are mutated by `npm run mutation:integration`.
 */
import { defineConfig } from 'vitest/config';

// StrykerJS runs tests in worker threads, which cannot change the process's time zone: set it here,
// before they start, to a zone that is not UTC, so a timestamp read as local time shows
// (test/datasets/mutation-timestamps.unit.test.ts sets the same zone itself under the normal config).
process.env.TZ = 'America/New_York';

export default defineConfig({
  test: {
    include: ['test/**/*.unit.test.ts'],
    testTimeout: 10_000,
    hookTimeout: 10_000,
  },
});
