/**
 * The test run of `npm run mutation` (stryker.config.mjs): only the unit tests in test/unit/, which
 * need no Redis, no embedded engine and no servers. A mutant of a pure module costs a second or
 * two this way, where the integration suite would cost minutes per mutant on a shared machine.
 * Modules that only the integration tests reach are mutated by `npm run mutation:integration`.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    testTimeout: 10_000,
    hookTimeout: 10_000,
  },
});
