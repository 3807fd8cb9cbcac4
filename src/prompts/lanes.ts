/**
 * Lanes: per agent job (or chain), the prompts waiting to be sent, in order; only the head has a
 * queue job. Every step is idempotent (stable job ids), so a re-run completes a broken hand-over.
 */
import { addPromptJobs, promptJobId, rescheduleDelayedPromptJob } from './prompt-jobs.js';
import type { JobSnapshot, PromptRecord } from './prompt-record.js';
import type { PromptStore } from './prompt-store.js';
import type { Queue } from 'bullmq';

/** The agent job as the prompt handing its lane on last saw it, and when. */
export interface SeenJob {
  jobId: string;
  snapshot: JobSnapshot;
  atMs: number;
}

/**
 * Adds the jobs of these lane heads (no-op for jobs that exist), and retries one the queue failed with
 * the prompt still open (it stalled too often): a re-run unblocks its lane. `fresh` heads had no job before.
 */
export async function repairLaneHeads(store: PromptStore, queue: Queue, headIds: readonly string[], fresh: ReadonlySet<string> = new Set()): Promise<void> {
  if (headIds.length === 0) return;
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

/** Sends a lane's new head (on the agent job just seen) in this run; resolves with the delay to its first poll. */
export type SendNow = (head: PromptRecord) => Promise<number>;

/**
 * Sends lane heads in this run, each under a guard: its own job, added first and delayed by
 * `guardMs`, then moved to its first poll (or to now, when the send failed).
 */
export async function sendWithGuards(queue: Queue, heads: readonly PromptRecord[], guardMs: number, send: (head: PromptRecord) => Promise<number>): Promise<void> {
  if (heads.length === 0) return;
  const guards = await addPromptJobs(queue, heads, { delayMs: guardMs });
  await Promise.all(
    heads.map(async (head, i) => {
      // A send that failed leaves its job due now, to take over from where the send stopped.
      const delayMs = await send(head).catch(() => 0);
      const guard = guards[i];
      if (guard) await rescheduleDelayedPromptJob(guard, delayMs);
    }),
  );
}

/**
 * Hands a final prompt's lane on. When the agent job was just `seen` to end, the next prompt is
 * sent at once with that look; otherwise its job goes ahead of the queue.
 */
export async function passLane(
  store: PromptStore,
  queue: Queue,
  record: PromptRecord,
  seen?: SeenJob,
  sendNow?: { send: SendNow; guardMs: number },
): Promise<void> {
  const next = await store.leaveLane(record);
  if (!next) return;
  const [head] = await store.readMany([next]);
  if (!head || head.done) return;
  // A chain's follow-up has no job id until it is sent: its job is the one the chain ran on.
  if (seen && sendNow && head.status === 'queued' && (head.jobId || seen.jobId) === seen.jobId) {
    await sendWithGuards(queue, [{ ...head, jobId: seen.jobId, before: seen.snapshot, checkedAtMs: seen.atMs }], sendNow.guardMs, sendNow.send);
    return;
  }
  await addPromptJobs(queue, [head], { first: true });
}
