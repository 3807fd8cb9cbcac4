/**
 * When to look at an agent job again: where runs of its (project, kind) typically end, learned from
 * the runs this worker saw end (docs/design.md#the-prompt-engine; measured in docs/benchmarks.md).
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
  /** Per (project, kind): the latest runs in the order seen, and sorted once per run seen (every poll reads them). */
  private readonly runs = new Map<string, { latest: number[]; sorted: number[] }>();

  constructor(private readonly timing: PromptTiming) {}

  /** A run seen ending: it was still active `lastActiveMs` after the send and over at `endedByMs`. */
  observe(prompt: PacedPrompt, lastActiveMs: number, endedByMs: number): void {
    const key = keyOf(prompt);
    const run = Math.max(0, (lastActiveMs + endedByMs) / 2);
    const latest = [...(this.runs.get(key)?.latest ?? []), run].slice(-SAMPLES);
    this.runs.set(key, { latest, sorted: [...latest].sort((a, b) => a - b) });
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
    const firstGoing = sorted.findIndex((run) => run > elapsedMs);
    if (firstGoing < 0) return clamp(elapsedMs * PAST_RUNS_STEP_SHARE, 1, this.timing.pollMaxMs);
    const target = sorted[firstGoing + Math.floor(NEXT_POLL_QUANTILE * (sorted.length - firstGoing))]!;
    return clamp(target - elapsedMs, Math.max(1, typical * MIN_STEP_SHARE), Math.max(1, Math.min(typical * MAX_STEP_SHARE, this.timing.pollMaxMs)));
  }

  private sorted(prompt: PacedPrompt): readonly number[] | undefined {
    const runs = this.runs.get(keyOf(prompt));
    return runs && runs.latest.length >= MIN_SAMPLES ? runs.sorted : undefined;
  }
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
