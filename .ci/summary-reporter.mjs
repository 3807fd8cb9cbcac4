/**
 * Vitest reporter for `.ci/run`: writes test-artifacts/summary.json with everything that counts as
 * a failure. Vitest's JSON reporter counts failed tests and failed suites, but not unhandled errors
 * (a rejection no test awaited), and its suite count includes every describe around a failed test;
 * here a suite counts only when it failed on its own (an import that throws, a failing hook).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const OUT = 'test-artifacts/summary.json';

export default class SummaryReporter {
  onTestRunEnd(testModules, unhandledErrors, reason) {
    let passed = 0;
    let skipped = 0;
    const failedTests = [];
    const failedSuites = [];
    for (const mod of testModules) {
      const own = (entity, name) => {
        for (const error of entity.errors()) failedSuites.push({ name, message: error.message });
      };
      own(mod, mod.relativeModuleId);
      for (const suite of mod.children.allSuites()) own(suite, `${mod.relativeModuleId} > ${suite.fullName}`);
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failedTests.push(`${mod.relativeModuleId} > ${test.fullName}`);
        else skipped++;
      }
    }
    const summary = {
      reason,
      passed,
      skipped,
      failedTests,
      failedSuites,
      unhandledErrors: unhandledErrors.map((e) => e.message ?? String(e)),
    };
    mkdirSync(dirname(OUT), { recursive: true });
    writeFileSync(OUT, `${JSON.stringify(summary, null, 2)}\n`);
  }
}
