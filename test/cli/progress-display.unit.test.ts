/**
 * Progress off a TTY (a log, CI, a pipe): a line when a task's state changes, the counts that move
 * in a summary at most every 30 s; the clock is injected.
 */
import { describe, expect, it } from 'vitest';
import { ProgressDisplay } from '../../src/cli/progress-display.js';

/** A display off a TTY writing to an array, on a clock the test moves. */
function plainDisplay() {
  const lines: string[] = [];
  const clock = { ms: 0 };
  const stream = { write: (text: string) => lines.push(...text.split('\n').filter(Boolean)) } as unknown as NodeJS.WritableStream;
  const display = new ProgressDisplay({ stream, tty: false, now: () => clock.ms });
  return { display, lines, clock };
}

describe('progress off a TTY', () => {
  it('prints 427 windows waiting five minutes in a line each, then a summary every 30 s, not a line per window per second', () => {
    const { display, lines, clock } = plainDisplay();
    for (let second = 0; second <= 300; second++, clock.ms += 1000) {
      for (let w = 0; w < 427; w++) {
        display.update(`visitors p${w} 2026-10-01..2026-10-02`, { done: false, state: 'waiting for the request budget', detail: `waiting for the request budget (${2619 - second}s left), 0 rows` });
      }
    }
    expect(lines.slice(0, 427).every((line) => line.endsWith('waiting for the request budget (2619s left), 0 rows'))).toBe(true);
    const summaries = lines.slice(427);
    expect(summaries).toHaveLength(10);
    expect(new Set(summaries)).toEqual(new Set(['progress: 0 of 427 done, 427 waiting for the request budget']));
  });

  it('prints a line at once when a task starts, begins to wait, and ends', () => {
    const { display, lines, clock } = plainDisplay();
    display.update('w1', { done: false, state: 'queued', detail: 'queued, 0 rows' });
    display.update('w1', { done: false, state: 'running', detail: 'running, 0 rows' });
    clock.ms += 1000;
    display.update('w1', { done: false, state: 'running', detail: 'running, 250 rows' });
    display.update('w1', { done: false, state: 'waiting for the request budget', detail: 'waiting for the request budget (36s left), 250 rows' });
    display.update('w1', { done: false, state: 'waiting for the request budget', detail: 'waiting for the request budget (35s left), 250 rows' });
    display.update('w1', { done: true, state: 'done', detail: 'done 500 rows' });
    expect(lines).toEqual(['w1: queued, 0 rows', 'w1: running, 0 rows', 'w1: waiting for the request budget (36s left), 250 rows', 'w1: done 500 rows']);
  });

  it("summarizes a single task (a prompt batch) as its latest line once 30 s passed without one", () => {
    const { display, lines, clock } = plainDisplay();
    for (let done = 0; done <= 40; done++, clock.ms += 1000) {
      display.update('batch b1', { done: false, state: 'following', detail: `${done}/100 final` });
    }
    expect(lines).toEqual(['batch b1: 0/100 final', 'batch b1: 30/100 final']);
  });

  it('shows what a task carries from upstream inert', () => {
    const { display, lines } = plainDisplay();
    display.update('w\u001b[2J', { done: true, detail: 'failed: \u001b]0;pwned\u0007' });
    expect(lines).toEqual([String.raw`w\x1b[2J: failed: \x1b]0;pwned\x07`]);
  });
});
