/**
 * The batch job (docs/design.md#the-prompt-engine): reconciles with the ledger, writes the batch's
 * states, enters the lanes and starts their heads. Idempotent: a re-run fills in only what is missing.
 */
import { repairLaneHeads, sendWithGuards } from './lanes.js';
import type { PromptContext } from './prompt-context.js';
import { clearFinishedPromptJobs, type BatchJobData } from './prompt-jobs.js';
import type { PromptRecord } from './prompt-record.js';
import { sendInThisRun } from './prompt-step.js';
import { rebuildBatch } from './rebuild-batch.js';
import { reconcileWithLedger } from './reconcile-ledger.js';

export interface StartedBatch {
  batchId: string;
  prompts: number;
  /** Prompts that entered a lane in this run. */
  laned: number;
  /** Prompts that took their state from the ledger (sent before: not sent again). */
  adopted: number;
  /** Rebuilt from the ledger (Redis had lost it). */
  rebuilt: boolean;
}

export interface StartBatchOptions {
  /** Most new lane heads this job sends itself, as a worker fetches jobs one by one (the rest, or all with 0, go to jobs every worker shares). @default 256 */
  sendFirst?: number;
}

export async function startBatch(ctx: PromptContext, data: BatchJobData, { sendFirst = 256 }: StartBatchOptions = {}): Promise<StartedBatch> {
  let meta = await ctx.store.batchMeta(data.batchId);
  const rebuilt = !meta && data.recover === true;
  if (rebuilt) meta = await rebuildBatch(ctx, data.batchId);
  if (!meta) {
    ctx.logger.warn({ event: 'prompts.batch_missing', batch: data.batchId, recover: data.recover === true }, data.recover ? 'batch not in the ledger: nothing to recover' : 'batch not in Redis');
    return { batchId: data.batchId, prompts: 0, laned: 0, adopted: 0, rebuilt: false };
  }
  const read = (await ctx.store.readMany(await ctx.store.batchPromptIds(data.batchId))).filter((r): r is PromptRecord => r !== undefined);
  const { records, adopted, startedBefore } = await reconcileWithLedger(ctx, meta, read);
  await ctx.writer.write(records.filter((r) => r.syncedVersion < r.version));
  const open = records.filter((r) => !r.done);
  // Made again after Redis lost it: a job left finished for one of its prompts would block the new one.
  if (startedBefore) await clearFinishedPromptJobs(ctx.queue, open);
  // A re-run re-adds each head's job: it repairs a hand-over a crash interrupted.
  const waiting = open.filter((r) => !r.laned);
  const { heads, firstInLane } = await ctx.store.enterLanes(open);
  const fresh = new Set(waiting.map((r) => r.promptId));
  // Heads of lanes that were empty have no job yet and no run ahead to hand over to them.
  const sendNow = (await ctx.store.readMany([...firstInLane].slice(0, sendFirst))).filter(
    (r): r is PromptRecord => r !== undefined && r.status === 'queued' && !r.done,
  );
  const sentHere = new Set(sendNow.map((r) => r.promptId));
  await repairLaneHeads(ctx.store, ctx.queue, heads.filter((id) => !sentHere.has(id)), fresh);
  await sendWithGuards(ctx.queue, sendNow, ctx.timing.sendGuardMs, (head) => sendInThisRun(ctx, head));
  // Started: a failure an earlier job of the batch recorded no longer holds.
  await ctx.store.clearStartFailure(data.batchId);
  ctx.logger.info(
    { event: 'prompts.batch_started', batch: data.batchId, prompts: records.length, laned: waiting.length, heads: heads.length, sentByBatchJob: sendNow.length, adopted, rebuilt },
    'batch started',
  );
  return { batchId: data.batchId, prompts: records.length, laned: waiting.length, adopted, rebuilt };
}
