/**
 * Submitting a batch: ids from content (the same good records make the same batch and prompts),
 * the prompts recorded in Redis, and one batch job that starts them. Submitting the same records
 * again adds nothing (the prompts exist, the batch job id is taken) unless `force` makes a new
 * batch. Needs only Redis and the queue: the CLI can submit while workers run elsewhere.
 */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { UsageError } from '../errors.js';
import { batchIdFor, newBatchSalt, promptIdFor } from './prompt-ids.js';
import type { PromptInput } from './prompt-input.js';
import { addBatchJob } from './prompt-jobs.js';
import { PromptStore, type NewPrompt } from './prompt-store.js';

export interface SubmitDeps {
  redis: Redis;
  /** The prompts queue. */
  queue: Queue;
  /** `config.queuePrefix`. */
  prefix: string;
}

export interface SubmitOptions {
  /** Make a new batch even when these prompts were submitted before. @default false */
  force?: boolean;
  /** Where the prompts came from (shown by `status`). @default '' */
  source?: string;
}

export interface SubmittedBatch {
  batchId: string;
  total: number;
  /** Prompts recorded by this submission. */
  added: number;
  /** Prompts that were already submitted (nothing enqueued for them). */
  existing: number;
  /** Prompt ids in input order. */
  promptIds: string[];
}

export async function submitBatch(deps: SubmitDeps, prompts: readonly PromptInput[], options: SubmitOptions = {}): Promise<SubmittedBatch> {
  if (prompts.length === 0) throw new UsageError('no prompts to submit');
  const batchId = batchIdFor(prompts, options.force ? newBatchSalt() : undefined);
  const records: NewPrompt[] = prompts.map((p, position) => ({
    projectId: p.projectId,
    jobId: p.jobId,
    prompt: p.prompt,
    position,
    promptId: promptIdFor(batchId, position, p),
  }));
  const store = new PromptStore(deps.redis, deps.prefix);
  const { added, existing } = await store.createBatch({ batchId, total: records.length, createdAtMs: Date.now(), source: options.source ?? '' }, records);
  // Added last: a submission cut short is completed by submitting again, and the job (a no-op
  // when it exists) then starts every prompt that was recorded.
  await addBatchJob(deps.queue, batchId, 0);
  if (added === 0) {
    // Submitted before and not finished: run the batch job again (a new generation). It adds no
    // prompt, but re-checks the lanes of the open ones, so a lane stuck by a lost or failed job
    // moves again.
    const { done } = await store.batchCounts(batchId);
    if (done < records.length) await addBatchJob(deps.queue, batchId, await store.nextBatchGeneration(batchId));
  }
  return { batchId, total: records.length, added, existing, promptIds: records.map((r) => r.promptId) };
}
