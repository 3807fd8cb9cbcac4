import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openExportStack, type ExportStack } from '../support/export-stack.js';
import { until } from '../support/wait.js';

/** The analytics budget's window: the longest pause an upstream's Retry-After may cause. */
const WINDOW_MS = 3000;

let stack: ExportStack;
let pauseKey: string;

beforeAll(async () => {
  stack = await openExportStack({ env: { MINTPIPE_ANALYTICS_RATE: `100/${WINDOW_MS / 1000}s` } });
  pauseKey = `{${stack.config.queuePrefix}:budget:analytics}:paused-until`;
});
afterAll(async () => {
  await stack?.close();
});

describe('a Retry-After above the budget window', () => {
  const hints: Array<[string, string, string]> = [
    ['ten years', '315360000', 'tenyears-300'],
    ['an integer too big for Redis', '99999999999999999999999', 'absurd-300'],
  ];
  for (const [what, hint, project] of hints) {
    it(`(${what}) pauses the shared budget for at most the window, and the window then completes`, async () => {
      const refusedBefore = stack.emulator.counters.analytics429;
      stack.emulator.control.script('visitors', [{ kind: 'rateLimit', retryAfter: hint }]);
      const finished = stack.exportWindows([{ projectId: project, dateFrom: '2026-10-01', dateTo: '2026-10-02' }]);
      const stored = await until(
        'the pause to be stored',
        async () => {
          const [untilMs, ttlMs] = await Promise.all([stack.runtime.redis.get(pauseKey), stack.runtime.redis.pttl(pauseKey)]);
          return untilMs === null ? undefined : { untilMs: Number(untilMs), ttlMs, readAtMs: Date.now() };
        },
        20_000,
        10,
      );
      expect(stored.ttlMs).toBeGreaterThan(0);
      expect(stored.ttlMs).toBeLessThanOrEqual(WINDOW_MS);
      // Redis's clock is this machine's: the stored deadline is within the window of now.
      expect(stored.untilMs - stored.readAtMs).toBeLessThanOrEqual(WINDOW_MS);
      const [result] = await finished;
      expect(result?.failedReason).toBeUndefined();
      expect(result?.state).toBe('completed');
      expect(stack.emulator.counters.analytics429 - refusedBefore).toBe(1);
      const [count] = await stack.rows(`SELECT count() AS n FROM visitors WHERE project_id = '${project}'`);
      expect(Number(count!.n)).toBe(300);
    }, 60_000);
  }
});
