/**
 * Lanes: per agent job (or chain), the prompts waiting to be sent, in order; only the head has a
 * queue job. When a prompt's outcome is final, its lane is handed on: in a chain, `completed` lets
 * the next step go, `ambiguous` holds the steps after it (`prompts resend` or `cancel` releases
 * them), anything else skips them. Every step is idempotent (stable job ids), so a re-run completes
 * a broken hand-over and writes what was not written.
 */
import type { Queue } from 'bullmq';
import { isTerminalStatus } from '../api/index.js';
import { addPromptJobs, promptJobId, rescheduleDelayedPromptJob } from './prompt-jobs.js';
import type { JobSnapshot, PromptRecord } from './prompt-record.js';
import type { PromptStore } from './prompt-store.js';
import type { StepScope } from './step-scope.js';

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

/**
 * When the agent job was just seen to end, the lane's next prompt is sent at once (`send`, in this
 * run) with that look; otherwise its job goes ahead of the queue.
 */
export async function handOver(scope: StepScope, record: PromptRecord, send: SendNow): Promise<void> {
  const { store, queue } = scope.ctx;
  if (record.chain !== undefined && record.status !== 'completed') {
    const after = await store.chainAfter(record);
    // Skipped by a run that died before writing them: no run of their own would write them.
    for (const step of after) if (step.done && step.syncedVersion < step.version) scope.remember(step);
    const rest = after.filter((r) => !r.done);
    if (record.status === 'ambiguous' && rest.length > 0) {
      for (const step of rest) await store.setHeld(step, true);
      scope.logger.info({ event: 'prompt.chain_held', chain: record.chain, held: rest.length }, 'chain held behind an ambiguous step');
      return;
    }
    const where = record.line === undefined ? `#${record.position + 1}` : `line ${record.line}`;
    for (const step of rest) {
      const skipped = await scope.move(step, 'skipped', { finishedAt: scope.ctx.now(), error: `not sent: chain "${record.chain}" stopped at ${where}, which ended ${record.status}` }, true);
      if (skipped.ok) await store.leaveLane(step);
    }
  }
  const next = await store.leaveLane(record);
  const [head] = next ? await store.readMany([next]) : [];
  if (!head || head.done) return;
  const seen = seenJob(record);
  // A chain's follow-up has no job id until it is sent: its job is the one the chain ran on.
  if (seen && head.status === 'queued' && (head.jobId || seen.jobId) === seen.jobId) {
    await sendWithGuards(queue, [{ ...head, jobId: seen.jobId, before: seen.snapshot, checkedAtMs: seen.atMs }], scope.ctx.timing.sendGuardMs, send);
  } else {
    await addPromptJobs(queue, [head], { first: true });
  }
}

/** The job as the prompt's last poll saw it, when that poll is what ended it (completed or failed). */
function seenJob(record: PromptRecord): { jobId: string; snapshot: JobSnapshot; atMs: number } | undefined {
  if (record.status !== 'completed' && record.status !== 'failed') return undefined;
  if (!record.jobId || !record.lastStatus || !isTerminalStatus(record.lastStatus) || record.finishedAtMs === undefined) return undefined;
  return { jobId: record.jobId, snapshot: { status: record.lastStatus, prLink: record.prLink, archivedAt: record.lastArchivedAt }, atMs: record.finishedAtMs };
}
