/**
 * When to look at an agent job again after a send: at the agents' own pace. Each worker learns
 * how long runs take from the runs it saw end (per project and kind: a create's first run may be
 * longer than a follow-up's), and polls where runs typically end:
 * - the first poll near the time by which ~30% of runs ended (an early poll catches fast runs);
 * - then, while the job is active, at the time by which half of the runs still going would have
 *   ended, in steps of at least 3% and at most 10% of the typical run, so a finished run is seen
 *   soon and a long one does not cost many polls (never more than pollMaxMs apart);
 * - past every run seen, an eighth of the time since the send (up to pollMaxMs). The runs seen
 *   are the ones that ended: early in a batch they are the short ones, so a job past all of them
 *   is not unusual, and a quarter (the earlier rule) left the longest jobs of a first round
 *   ~200 ms late on ~1.4 s runs in `npm run bench`.
 * Until a few runs were seen (the first round of a batch: every prompt is sent before any run
 * ends), each poll comes a quarter of the time since the send later (at least pollInitialMs / 4,
 * at most pollMaxMs): a run is seen at most a quarter of its time (or pollInitialMs / 4) after
 * its end, at ~20 polls for a lone 5-minute run at the default pollInitialMs of 2 s. A doubling
 * backoff from pollInitialMs polls at 0.5, 1.5, 3.5 s and saw a 1.6 s run 1.9 s late, costing
 * the whole first round.
 *
 * `npm run bench` measures it on 1,000 prompts over 250 jobs with run times spread ±50%: ~3.5
 * polls per prompt.
 */
import type { PromptTiming } from './prompt-timing.js';

/** Runs kept per (project, kind): enough for stable quantiles, recent enough to follow a drift. */
const SAMPLES = 200;
/** Runs seen before the learned pace replaces the plain backoff. */
const MIN_SAMPLES = 5;
const FIRST_POLL_QUANTILE = 0.3;
const NEXT_POLL_QUANTILE = 0.5;
const MIN_STEP_SHARE = 0.03;
const MAX_STEP_SHARE = 0.1;
/** Share of the time since the send to wait while no run was learned yet / once past every run seen. */
const UNLEARNED_STEP_SHARE = 0.25;
const PAST_RUNS_STEP_SHARE = 0.125;

interface PacedPrompt {
  projectId: string;
  kind: string;
}

export class PollPace {
  private readonly runs = new Map<string, number[]>();
  /** Each key's runs, sorted: made again only after a new run was seen (every poll reads it). */
  private readonly sortedRuns = new Map<string, number[]>();

  constructor(private readonly timing: PromptTiming) {}

  /** A run seen ending: it was still active `lastActiveMs` after the send and over at `endedByMs`. */
  observe(prompt: PacedPrompt, lastActiveMs: number, endedByMs: number): void {
    const key = keyOf(prompt);
    const runs = this.runs.get(key) ?? [];
    runs.push(Math.max(0, (lastActiveMs + endedByMs) / 2));
    if (runs.length > SAMPLES) runs.shift();
    this.runs.set(key, runs);
    this.sortedRuns.delete(key);
  }

  /** Delay from the send to the first poll. */
  firstPollMs(prompt: PacedPrompt): number {
    const sorted = this.sorted(prompt);
    if (!sorted) return this.timing.pollInitialMs;
    const typical = quantile(sorted, 0.5);
    return clamp(quantile(sorted, FIRST_POLL_QUANTILE), typical * MIN_STEP_SHARE, this.timing.pollMaxMs);
  }

  /** Delay to the next poll of a job still active `elapsedMs` after the send. */
  nextPollMs(prompt: PacedPrompt, elapsedMs: number): number {
    const sorted = this.sorted(prompt);
    if (!sorted) return clamp(elapsedMs * UNLEARNED_STEP_SHARE, this.timing.pollInitialMs * UNLEARNED_STEP_SHARE, this.timing.pollMaxMs);
    const typical = quantile(sorted, 0.5);
    // The runs still going at `elapsedMs`: those after the first one longer than it.
    const firstGoing = firstAbove(sorted, elapsedMs);
    if (firstGoing === sorted.length) return clamp(elapsedMs * PAST_RUNS_STEP_SHARE, 1, this.timing.pollMaxMs);
    const target = sorted[firstGoing + Math.floor(NEXT_POLL_QUANTILE * (sorted.length - firstGoing))]!;
    return clamp(target - elapsedMs, Math.max(1, typical * MIN_STEP_SHARE), Math.max(1, Math.min(typical * MAX_STEP_SHARE, this.timing.pollMaxMs)));
  }

  private sorted(prompt: PacedPrompt): readonly number[] | undefined {
    const key = keyOf(prompt);
    const cached = this.sortedRuns.get(key);
    if (cached) return cached;
    const runs = this.runs.get(key);
    if (!runs || runs.length < MIN_SAMPLES) return undefined;
    const sorted = [...runs].sort((a, b) => a - b);
    this.sortedRuns.set(key, sorted);
    return sorted;
  }
}

/** Index of the first value above `value` in ascending `sorted` (its length when there is none). */
function firstAbove(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]! > value) high = mid;
    else low = mid + 1;
  }
  return low;
}

function keyOf(prompt: PacedPrompt): string {
  return `${prompt.projectId}\u0000${prompt.kind}`;
}

/** The value below which a share `q` of the sorted values lie. */
function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** `value` kept within [min, max]; the ceiling wins when they cross (pollMaxMs is the user's bound). */
function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max);
}
