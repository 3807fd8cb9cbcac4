/**
 * What happens after a prompt's outcome is final, before its lane moves on.
 *
 * Outside a chain, nothing more: the lane passes to the next prompt for the same agent job. In a
 * chain, later steps build on this one, so:
 * - `completed`: the lane passes to the chain's next step;
 * - `ambiguous` (delivery unknown): the steps after it are held, still `queued`, and the step stays
 *   at the head of its lane so nothing is sent to a guess; `prompts resend` sends it again (the
 *   chain then goes on) and `prompts cancel` ends the held steps as `cancelled`;
 * - any other outcome: the steps after it end `skipped`, with the reason, and the lane moves on.
 *
 * Every step here is idempotent: a run that died half-way through is completed by the next run of
 * the prompt's job, which finds it final and hands over again, writing to the warehouse what the
 * dead run changed in Redis but did not write.
 */
import { isTerminalStatus } from '../api/index.js';
import { passLane, type SendNow, type SeenJob } from './lanes.js';
import type { PromptRecord } from './prompt-record.js';
import type { StepScope } from './step-scope.js';

/** `send` sends the lane's next head in this run when the agent job was just seen to end (see passLane). */
export async function handOver(scope: StepScope, record: PromptRecord, send: SendNow): Promise<void> {
  const { store, queue } = scope.ctx;
  if (record.chain !== undefined && record.status !== 'completed') {
    const after = await store.chainAfter(record);
    // A run that died after skipping the steps in Redis but before writing them: their final
    // state reaches the warehouse now (no run of their own would ever write it).
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
  await passLane(store, queue, record, seenJob(record), { send, guardMs: scope.ctx.timing.sendGuardMs });
}

/** The job as the prompt's last poll saw it, when that poll is what ended it (completed or failed). */
function seenJob(record: PromptRecord): SeenJob | undefined {
  if (record.status !== 'completed' && record.status !== 'failed') return undefined;
  if (!record.jobId || !record.lastStatus || !isTerminalStatus(record.lastStatus) || record.finishedAtMs === undefined) return undefined;
  return { jobId: record.jobId, snapshot: { status: record.lastStatus, prLink: record.prLink, archivedAt: record.lastArchivedAt }, atMs: record.finishedAtMs };
}
