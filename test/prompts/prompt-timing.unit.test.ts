/** The plain backoff of prompt checks: pollInitialMs doubling per check, never above pollMaxMs. */
import { describe, expect, it } from 'vitest';
import { backoffMs, type PromptTiming } from '../../src/prompts/prompt-timing.js';

const timing: PromptTiming = { pollInitialMs: 100, pollMaxMs: 1000, deadlineMs: 60_000, unchangedPollsToSettle: 3, settleMs: 10_000, maxConsecutiveFailures: 10, sendGuardMs: 30_000 };

describe('the backoff of prompt checks', () => {
  it('starts at pollInitialMs and doubles per check until pollMaxMs', () => {
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffMs(timing, n))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('stays at pollMaxMs however many checks failed (no overflow to Infinity or NaN)', () => {
    expect(backoffMs({ ...timing, pollMaxMs: Number.MAX_VALUE }, 30)).toBe(100 * 2 ** 30);
    expect(backoffMs({ ...timing, pollMaxMs: Number.MAX_VALUE }, 5000)).toBe(100 * 2 ** 30);
  });
});
