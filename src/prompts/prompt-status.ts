/**
 * The public states of a prompt (the `status` column of `prompt_outcomes`) and how they group.
 * A prompt is *final* when its record says so (`done`), not by status alone: an `ambiguous`
 * prompt is still observed (polled) until its agent job settles, and only then is it final.
 */
import type { PromptStatus } from '../warehouse/index.js';

export type { PromptStatus } from '../warehouse/index.js';

export const PROMPT_STATUSES = [
  'queued',
  'sending',
  'polling',
  'completed',
  'archived',
  'failed',
  'timed_out',
  'ambiguous',
  'rejected',
  'skipped',
  'cancelled',
] as const satisfies readonly PromptStatus[];

/** Delivered, and the agent job's outcome observed: a batch of only these is a success. */
export const DELIVERED_STATUSES = ['completed', 'archived', 'failed'] as const satisfies readonly PromptStatus[];

/**
 * Statuses that are always final (ambiguous is final only once its observation ended). `skipped`:
 * a chain step after a step that did not complete; `cancelled`: never sent, the batch was cancelled.
 */
export const FINAL_STATUSES = ['completed', 'archived', 'failed', 'timed_out', 'rejected', 'skipped', 'cancelled'] as const satisfies readonly PromptStatus[];

export function isDelivered(status: PromptStatus): boolean {
  return (DELIVERED_STATUSES as readonly PromptStatus[]).includes(status);
}

export function isPromptStatus(value: string): value is PromptStatus {
  return (PROMPT_STATUSES as readonly string[]).includes(value);
}
