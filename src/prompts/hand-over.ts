/**
 * After a prompt's outcome is final: in a chain, `completed` lets the next step go, `ambiguous` holds
 * the steps after it (`prompts resend` or `cancel` releases them), anything else skips them. Then the
 * lane moves on. Idempotent: a re-run after a crash hands over again and writes what was not written.
 */
import { isTerminalStatus } from '../api/index.js';
import { sendWithGuards, type SendNow } from './lanes.js';
import { addPromptJobs } from './prompt-jobs.js';
import type { JobSnapshot, PromptRecord } from './prompt-record.js';
import type { StepScope } from './step-scope.js';

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
