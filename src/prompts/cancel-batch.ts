/**
 * `prompts cancel BATCH`: ends what was never sent as `cancelled` — queued prompts, held ones
 * included — and takes them out of their lanes; what is in flight (sending, polling, an ambiguous
 * send still observed) finishes. An ambiguous chain step that held its chain lets go of its lane.
 * Each cancel is one atomic transition from `queued`, so a worker that claims a prompt at the same
 * moment either wins (the prompt is sent and finishes) or finds it final and sends nothing.
 */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { BatchNotFoundError } from './batch-status.js';
import { repairLaneHeads } from './lanes.js';
import { addBatchJob } from './prompt-jobs.js';
import type { PromptRecord } from './prompt-record.js';
import { PromptStore } from './prompt-store.js';

export interface CancelResult {
  batchId: string;
  /** Prompts ended as cancelled. */
  cancelled: string[];
  /** Prompts in flight, left to finish. */
  inFlight: string[];
}

export async function cancelBatch(deps: { redis: Redis; queue: Queue; prefix: string }, batchId: string, now = Date.now()): Promise<CancelResult> {
  const store = new PromptStore(deps.redis, deps.prefix);
  if (!(await store.batchMeta(batchId))) throw new BatchNotFoundError(batchId);
  const records = (await store.readMany(await store.batchPromptIds(batchId))).filter((r): r is PromptRecord => r !== undefined);
  const cancelled: string[] = [];
  const inFlight: string[] = [];
  const heads = new Set<string>();
  for (const record of records) {
    if (record.done) {
      // An ambiguous step holding its chain stays at the head of its lane until now.
      if (record.status === 'ambiguous' && record.chain !== undefined && (await store.laneHead(record.lane)) === record.promptId) {
        const next = await store.leaveLane(record);
        if (next) heads.add(next);
      }
      continue;
    }
    if (record.status !== 'queued') {
      inFlight.push(record.promptId);
      continue;
    }
    const result = await store.transition(record.promptId, batchId, {
      attempt: record.attempt,
      from: ['queued'],
      to: 'cancelled',
      done: true,
      set: { finishedAt: now, error: 'cancelled before it was sent' },
    });
    if (!result.ok) {
      if (result.reason === 'wrong-status') inFlight.push(record.promptId);
      continue;
    }
    cancelled.push(record.promptId);
    const next = await store.leaveLane(record);
    if (next) heads.add(next);
  }
  // Lanes shared with other batches move on to their next prompt.
  const open = (await store.readMany([...heads])).filter((r) => r !== undefined && !r.done).map((r) => r!.promptId);
  await repairLaneHeads(store, deps.queue, open);
  // The batch job writes the cancelled states to the warehouse (the CLI needs only Redis).
  if (cancelled.length > 0) await addBatchJob(deps.queue, batchId, await store.nextBatchGeneration(batchId));
  return { batchId, cancelled, inFlight };
}
