/**
 * After a prompt's outcome is final: in a chain, `completed` lets the next step go, `ambiguous` holds
 * the steps after it (`prompts resend` or `cancel` releases them), anything else skips them. Then the
 * lane moves on. Idempotent: a re-run after a crash hands over again and writes what was not written.
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
  await passLane(store, queue, record, seenJob(record), { send, guardMs: scope.ctx.timing.sendGuardMs });
}

/** The job as the prompt's last poll saw it, when that poll is what ended it (completed or failed). */
function seenJob(record: PromptRecord): SeenJob | undefined {
  if (record.status !== 'completed' && record.status !== 'failed') return undefined;
  if (!record.jobId || !record.lastStatus || !isTerminalStatus(record.lastStatus) || record.finishedAtMs === undefined) return undefined;
  return { jobId: record.jobId, snapshot: { status: record.lastStatus, prLink: record.prLink, archivedAt: record.lastArchivedAt }, atMs: record.finishedAtMs };
}
