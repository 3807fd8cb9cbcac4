/**
 * Lanes: per agent job (or per chain whose job is yet to be created), the prompts waiting to be
 * sent, in order. Only a lane's head has a queue
 * job; when it is final it leaves the lane and the next head's job is added. Every step here is
 * idempotent (stable job ids, LREM of an absent id), so a worker that dies between "final" and
 * "next job added" is simply re-run by BullMQ and completes the hand-over.
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

/** Adds the queue jobs of these lane heads (no-op for jobs that exist). */
export async function startLaneHeads(store: PromptStore, queue: Queue, headIds: readonly string[]): Promise<void> {
  if (headIds.length === 0) return;
  const heads = (await store.readMany(headIds)).filter((r): r is PromptRecord => r !== undefined);
  await addPromptJobs(queue, heads);
}

/**
 * Like startLaneHeads, and also retries a head's job that the queue failed without the prompt
 * ending (a job that stalled too often never reaches the processor's error handling): re-running
 * a batch job therefore unblocks such a lane. Heads in `fresh` entered their lane in this run, so
 * no job of theirs existed before the one just added: they are not looked up (a batch's first
 * start sends at once instead of first reading back every job it added).
 */
export async function repairLaneHeads(store: PromptStore, queue: Queue, headIds: readonly string[], fresh: ReadonlySet<string> = new Set()): Promise<void> {
  const heads = (await store.readMany(headIds)).filter((r): r is PromptRecord => r !== undefined);
  await addPromptJobs(queue, heads);
  const open = heads.filter((r) => !r.done && !fresh.has(r.promptId));
  // Looked up side by side: a batch of thousands of lanes starts its sends without delay.
  for (let start = 0; start < open.length; start += 100) {
    await Promise.all(
      open.slice(start, start + 100).map(async (head) => {
        const job = await queue.getJob(promptJobId(head.promptId, head.attempt));
        if (job && (await job.getState()) === 'failed') await job.retry('failed');
      }),
    );
  }
}

/**
 * Sends a lane's new head right away, in the run that ended the prompt ahead of it; resolves with
 * the delay until its job's next run (its first poll), or rejects (the job then takes over).
 * `jobId` is the agent job the lane is on (a chain's follow-up has none of its own yet).
 */
export type SendNow = (head: PromptRecord, jobId: string) => Promise<number>;

/**
 * Sends lane heads in this run instead of by their queue jobs: no head waits for a worker to
 * fetch its job. Each head's job is added first, delayed by `guardMs` (longer than a send can
 * take), so a worker dying mid-send leaves a job that finds the prompt `sending` and never posts
 * again (or still `queued`, and sends it). After its send, each job is moved to the head's next
 * step (its first poll), or to now when the send failed: the job takes over from there.
 */
export async function sendWithGuards(queue: Queue, heads: readonly PromptRecord[], guardMs: number, send: (head: PromptRecord) => Promise<number>): Promise<void> {
  if (heads.length === 0) return;
  const guards = await addPromptJobs(queue, heads, { delayMs: guardMs });
  await Promise.all(
    heads.map(async (head, i) => {
      let delayMs = 0;
      try {
        delayMs = await send(head);
      } catch {
        // The job, due now, takes over from where the send stopped.
      }
      const guard = guards[i];
      if (guard) await rescheduleDelayedPromptJob(guard, delayMs);
    }),
  );
}

/**
 * Hands a final prompt's lane on to the next prompt for the same agent job. What the finished
 * prompt just saw of the job goes with it: seen terminal a moment ago, the job needs no second
 * look, and the next prompt is sent at once by `sendNow`, under a guard (sendWithGuards; a job
 * that finds it still `queued` looks at the agent job itself). Otherwise the next prompt's job
 * goes ahead of the queue.
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
    await sendWithGuards(queue, [{ ...head, before: seen.snapshot, checkedAtMs: seen.atMs }], sendNow.guardMs, (h) => sendNow.send(h, seen.jobId));
    return;
  }
  await addPromptJobs(queue, [head], { first: true });
}
