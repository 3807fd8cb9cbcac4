/**
 * Lanes: per agent job (or chain), the prompts waiting to be sent, in order; only the head has a
 * queue job. Every step is idempotent (stable job ids), so a re-run completes a broken hand-over.
 */
import { addPromptJobs, promptJobId, rescheduleDelayedPromptJob } from './prompt-jobs.js';
import type { PromptRecord } from './prompt-record.js';
import type { PromptStore } from './prompt-store.js';
import type { Queue } from 'bullmq';

/**
 * Adds the jobs of these lane heads (no-op for jobs that exist), and retries one the queue failed with
 * the prompt still open (it stalled too often): a re-run unblocks its lane. `fresh` heads had no job before.
 */
export async function repairLaneHeads(store: PromptStore, queue: Queue, headIds: readonly string[], fresh: ReadonlySet<string> = new Set()): Promise<void> {
  const heads = (await store.readMany(headIds)).filter((r): r is PromptRecord => r !== undefined);
  await addPromptJobs(queue, heads);
  const open = heads.filter((r) => !r.done && !fresh.has(r.promptId));
  for (let start = 0; start < open.length; start += 100) {
    await Promise.all(
      open.slice(start, start + 100).map(async (head) => {
        const job = await queue.getJob(promptJobId(head.promptId, head.attempt));
        if (job && (await job.getState()) === 'failed') await job.retry('failed');
      }),
    );
  }
}

/** Sends a lane's head in this run; resolves with the delay to its first poll (0 when it ended). */
export type SendNow = (head: PromptRecord) => Promise<number>;

/**
 * Sends lane heads in this run, each under a guard: its own job, added first and delayed by
 * `guardMs`, then moved to its first poll (or to now, when the send failed).
 */
export async function sendWithGuards(queue: Queue, heads: readonly PromptRecord[], guardMs: number, send: SendNow): Promise<void> {
  const guards = await addPromptJobs(queue, heads, { delayMs: guardMs });
  await Promise.all(
    heads.map(async (head, i) => {
      // A send that failed leaves its job due now, to take over from where the send stopped.
      const delayMs = await send(head).catch(() => 0);
      await rescheduleDelayedPromptJob(guards[i]!, delayMs);
    }),
  );
}
