/** What one run of a prompt job ended with; the processor maps `wait` to a delayed job. */
import type { PromptStatus } from './prompt-status.js';

export type StepOutcome =
  /** Run again after `delayMs` (a poll, a busy agent job, the budget, a 429): holds no worker. */
  | { kind: 'wait'; delayMs: number; reason: string }
  /** The prompt's outcome is final and its lane was handed on. */
  | { kind: 'finished'; status: PromptStatus }
  /** Nothing to do: the prompt is gone, or a newer send attempt owns it. */
  | { kind: 'skipped'; reason: string };

export function wait(delayMs: number, reason: string): StepOutcome {
  return { kind: 'wait', delayMs: Math.max(1, Math.ceil(delayMs)), reason };
}
