/**
 * `prompts resend BATCH --ambiguous`: the explicit decision to send again the prompts whose
 * delivery is unknown. Each becomes a new attempt (new job ids; jobs of the old attempt do
 * nothing) and goes back through its lane, behind whatever is queued for that agent job now.
 */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { BatchNotFoundError } from './batch-status.js';
import { addBatchJob } from './prompt-jobs.js';
import { PromptStore } from './prompt-store.js';

export interface ResendResult {
  batchId: string;
  /** Prompt ids made queued again. */
  resent: string[];
}

export async function resendAmbiguous(deps: { redis: Redis; queue: Queue; prefix: string }, batchId: string): Promise<ResendResult> {
  const store = new PromptStore(deps.redis, deps.prefix);
  if (!(await store.batchMeta(batchId))) throw new BatchNotFoundError(batchId);
  const resent: string[] = [];
  for (const record of await store.readMany(await store.batchPromptIds(batchId))) {
    if (record?.status !== 'ambiguous' || !record.done) continue;
    if (await store.resend(record.promptId, batchId)) resent.push(record.promptId);
  }
  if (resent.length > 0) await addBatchJob(deps.queue, batchId, await store.nextBatchGeneration(batchId));
  return { batchId, resent };
}
