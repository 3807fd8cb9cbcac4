/**
 * Batches that did not start: their batch job crashed out or failed for good before it wrote them
 * to the warehouse, so the warehouse's batch summaries may not show them at all. Redis keeps why
 * (`startFailure` on the batch, cleared when a start is asked for again or succeeds).
 */
import type { Redis } from 'ioredis';
import { PromptKeys } from '../prompts/prompt-keys.js';
import { PromptStore } from '../prompts/prompt-store.js';

export interface NotStartedBatch {
  batchId: string;
  prompts: number;
  /** One line: why its batch job gave up. */
  reason: string;
  /** ISO 8601. */
  at: string;
}

/** Of the `recent` batches submitted last, those whose start failed, newest first. */
export async function notStartedBatches(redis: Redis, queuePrefix: string, recent = 50): Promise<NotStartedBatch[]> {
  const ids = await redis.zrevrange(new PromptKeys(queuePrefix).batches(), 0, recent - 1);
  const store = new PromptStore(redis, queuePrefix);
  const metas = await Promise.all(ids.map((id) => store.batchMeta(id)));
  return metas.flatMap((meta) =>
    meta?.startFailure ? [{ batchId: meta.batchId, prompts: meta.total, reason: meta.startFailure.reason, at: new Date(meta.startFailure.atMs).toISOString() }] : [],
  );
}
