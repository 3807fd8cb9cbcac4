/**
 * Lanes: per agent job (or per chain whose job is yet to be created), the prompts waiting to be
 * sent, in order. Only a lane's head has a queue
 * job; when it is final it leaves the lane and the next head's job is added. Every step here is
 * idempotent (stable job ids, LREM of an absent id), so a worker that dies between "final" and
 * "next job added" is simply re-run by BullMQ and completes the hand-over.
 */
import { addPromptJobs, promptJobId } from './prompt-jobs.js';
import type { PromptRecord } from './prompt-record.js';
import type { PromptStore } from './prompt-store.js';
import type { Queue } from 'bullmq';

/** Adds the queue jobs of these lane heads (no-op for jobs that exist). */
export async function startLaneHeads(store: PromptStore, queue: Queue, headIds: readonly string[]): Promise<void> {
  if (headIds.length === 0) return;
  const heads = (await store.readMany(headIds)).filter((r): r is PromptRecord => r !== undefined);
  await addPromptJobs(queue, heads);
}

/**
 * Like startLaneHeads, and also retries a head's job that the queue failed without the prompt
 * ending (a job that stalled too often never reaches the processor's error handling): re-running
 * a batch job therefore unblocks such a lane.
 */
export async function repairLaneHeads(store: PromptStore, queue: Queue, headIds: readonly string[]): Promise<void> {
  await startLaneHeads(store, queue, headIds);
  for (const head of (await store.readMany(headIds)).filter((r): r is PromptRecord => r !== undefined && !r.done)) {
    const job = await queue.getJob(promptJobId(head.promptId, head.attempt));
    if (job && (await job.getState()) === 'failed') await job.retry('failed');
  }
}

/** Hands a final prompt's lane on to the next prompt for the same agent job. */
export async function passLane(store: PromptStore, queue: Queue, record: PromptRecord): Promise<void> {
  const next = await store.leaveLane(record);
  if (next) await startLaneHeads(store, queue, [next]);
}
