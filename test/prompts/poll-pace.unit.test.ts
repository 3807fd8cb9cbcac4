/**
 * The poll pace decides, from the runs a worker saw end, when to look at an agent job again:
 * a plain backoff until enough runs were seen, then polls where runs typically end, learned per
 * project and kind, from the most recent runs only.
 */
import { describe, expect, it } from 'vitest';
import { PollPace } from '../../src/prompts/poll-pace.js';
import type { PromptTiming } from '../../src/prompts/prompt-timing.js';

const timing: PromptTiming = {
  pollInitialMs: 2000,
  pollMaxMs: 60_000,
  deadlineMs: 600_000,
  unchangedPollsToSettle: 3,
  settleMs: 10_000,
  maxConsecutiveFailures: 10,
  sendGuardMs: 30_000,
};
const docs = { projectId: 'docs', kind: 'message' };

/** A pace that saw these runs end, each exactly at its length (active until it, over at it). */
function paceWith(runs: readonly number[], prompt = docs, settings: PromptTiming = timing): PollPace {
  const pace = new PollPace(settings);
  for (const ms of runs) pace.observe(prompt, ms, ms);
  return pace;
}

/** Runs of 100, 200, … 1000 ms. */
const tenRuns = Array.from({ length: 10 }, (_, i) => (i + 1) * 100);

describe('the poll pace before it learned the runs', () => {
  it('polls first after pollInitialMs while fewer than five runs were seen', () => {
    expect(paceWith([]).firstPollMs(docs)).toBe(2000);
    expect(paceWith([100, 100, 100, 100]).firstPollMs(docs)).toBe(2000);
  });

  it('polls again a quarter of the time since the send later, at least a quarter of pollInitialMs, at most pollMaxMs', () => {
    const pace = paceWith([100, 100, 100, 100]);
    expect(pace.nextPollMs(docs, 40_000)).toBe(10_000);
    expect(pace.nextPollMs(docs, 1000)).toBe(500);
    expect(pace.nextPollMs(docs, 1_000_000)).toBe(60_000);
  });
});

describe('the poll pace once it learned the runs', () => {
  it('uses the learned pace from the fifth run on', () => {
    expect(paceWith([1000, 1000, 1000, 1000, 1000]).firstPollMs(docs)).toBe(1000);
  });

  it('polls first by the time ~30% of the runs ended', () => {
    expect(paceWith(tenRuns).firstPollMs(docs)).toBe(400);
  });

  it('polls first no later than pollMaxMs', () => {
    expect(paceWith(tenRuns, docs, { ...timing, pollMaxMs: 250 }).firstPollMs(docs)).toBe(250);
  });

  it('polls first no sooner than 3% of the typical run, however many runs were instant', () => {
    const runs = [...Array<number>(4).fill(0), ...Array<number>(6).fill(10_000)];
    expect(paceWith(runs).firstPollMs(docs)).toBe(300);
  });

  it('learns a run as ending midway between its last active look and the look that saw it over', () => {
    const pace = new PollPace(timing);
    for (let i = 0; i < 5; i++) pace.observe(docs, 800, 1200);
    expect(pace.firstPollMs(docs)).toBe(1000);
  });

  it('learns a run that never was seen active (negative times) as zero long', () => {
    const pace = new PollPace(timing);
    for (let i = 0; i < 5; i++) pace.observe(docs, -500, -100);
    // Zero-length runs: the first poll falls to its floor, 3% of a typical run of 0.
    expect(pace.firstPollMs(docs)).toBe(0);
  });

  it('polls next at the time by which half of the runs still going would have ended', () => {
    // Still going at 450 ms: 500…1000; half of them ended by 800 ms, 350 ms later — but a step is at most 10% of the typical run (600 ms).
    expect(paceWith(tenRuns).nextPollMs(docs, 450)).toBe(60);
    const long = Array.from({ length: 10 }, (_, i) => 10_000 + i * 10);
    // Still going at 10 025 ms: 10 030…10 090; half of them ended by 10 060 ms: 35 ms on, below 3% of the typical 10 050 ms.
    expect(paceWith(long).nextPollMs(docs, 10_025)).toBe(301.5);
  });

  it('polls next exactly at the target when it lies between 3% and 10% of the typical run', () => {
    const runs = [1000, 1000, 1000, 1000, 1000, 1050, 1050, 1050, 1050, 1050];
    // Typical run 1050: step between 31.5 and 105; still going at 1000: the 1050s, half ended by 1050.
    expect(paceWith(runs).nextPollMs(docs, 1000)).toBe(50);
  });

  it('counts a run exactly as long as the time elapsed as ended', () => {
    const runs = [1000, 1000, 1000, 1000, 1000, 1040, 1040, 1040, 1040, 1040];
    expect(paceWith(runs).nextPollMs(docs, 1000)).toBe(40);
    expect(paceWith(runs).nextPollMs(docs, 999)).toBe(41);
  });

  it('past every run seen, polls an eighth of the time since the send later, at least 1 ms, at most pollMaxMs', () => {
    const pace = paceWith(tenRuns);
    expect(pace.nextPollMs(docs, 8000)).toBe(1000);
    expect(pace.nextPollMs(docs, 1000)).toBe(125);
    expect(paceWith([0, 0, 0, 0, 0]).nextPollMs(docs, 4)).toBe(1);
    expect(pace.nextPollMs(docs, 10_000_000)).toBe(60_000);
  });

  it('never steps by less than 1 ms while runs are still going', () => {
    const runs = [0, 0, 0, 0, 0, 0, 1, 1, 1, 1];
    expect(paceWith(runs).nextPollMs(docs, 0)).toBe(1);
  });

  it('caps a step at pollMaxMs when 10% of the typical run is longer', () => {
    const runs = Array.from({ length: 10 }, (_, i) => 1_000_000 + i * 100_000);
    expect(paceWith(runs, docs, { ...timing, pollMaxMs: 100_000 }).nextPollMs(docs, 1_000_000)).toBe(100_000);
  });

  it('never steps by more than pollMaxMs, even when 3% of the typical run is longer (the user\'s bound wins)', () => {
    const runs = Array.from({ length: 10 }, (_, i) => 1_000_000 + i * 100_000);
    expect(paceWith(runs, docs, { ...timing, pollMaxMs: 5000 }).nextPollMs(docs, 1_000_000)).toBe(5000);
  });

  it('polls first no later than pollMaxMs, even when 3% of the typical run is longer', () => {
    const runs = Array.from({ length: 10 }, (_, i) => 1_000_000 + i * 100_000);
    expect(paceWith(runs, docs, { ...timing, pollMaxMs: 5000 }).firstPollMs(docs)).toBe(5000);
  });
});

describe('what the poll pace learns from', () => {
  it('keeps the runs of each project and kind apart', () => {
    const pace = paceWith(tenRuns);
    expect(pace.firstPollMs({ projectId: 'docs', kind: 'create' })).toBe(2000);
    expect(pace.firstPollMs({ projectId: 'other', kind: 'message' })).toBe(2000);
    for (let i = 0; i < 5; i++) pace.observe({ projectId: 'docs', kind: 'create' }, 5000, 5000);
    expect(pace.firstPollMs({ projectId: 'docs', kind: 'create' })).toBe(5000);
    expect(pace.firstPollMs(docs)).toBe(400);
  });

  it('follows a new run seen after it last decided', () => {
    const pace = paceWith([1000, 1000, 1000, 1000, 1000]);
    expect(pace.firstPollMs(docs)).toBe(1000);
    for (let i = 0; i < 5; i++) pace.observe(docs, 100, 100);
    expect(pace.firstPollMs(docs)).toBe(100);
  });

  it('keeps only the 200 most recent runs, so it follows a drift (more runs than it holds)', () => {
    const pace = paceWith(Array<number>(200).fill(9000));
    for (let i = 0; i < 199; i++) pace.observe(docs, 1000, 1000);
    expect(pace.firstPollMs(docs)).toBe(1000);
    // One old 9000 ms run left: at 5000 ms a run may still be going, so the step is 10% of the typical 1000.
    expect(pace.nextPollMs(docs, 5000)).toBe(100);
    pace.observe(docs, 1000, 1000);
    // Every old run dropped: at 5000 ms the job is past every run seen, an eighth of the time later.
    expect(pace.nextPollMs(docs, 5000)).toBe(625);
  });

  it('drops the oldest run first when it holds 200', () => {
    const pace = paceWith([...Array<number>(60).fill(100), ...Array<number>(140).fill(1000)]);
    expect(pace.firstPollMs(docs)).toBe(1000);
    pace.observe(docs, 5000, 5000);
    // The first 100 ms run left: 59 of them, so the 30% quantile (index 60) stays at 1000.
    expect(pace.firstPollMs(docs)).toBe(1000);
    const kept = paceWith([...Array<number>(61).fill(100), ...Array<number>(139).fill(1000)]);
    kept.observe(docs, 5000, 5000);
    expect(kept.firstPollMs(docs)).toBe(1000);
    const young = paceWith([...Array<number>(139).fill(1000), ...Array<number>(61).fill(100)]);
    young.observe(docs, 5000, 5000);
    // The dropped run was a 1000 ms one: 61 of 100 ms remain, index 60 is one of them.
    expect(young.firstPollMs(docs)).toBe(100);
  });
});
