/**
 * The batch job: asks the ledger about the prompts that never moved in Redis (a row that reached
 * `sending` or later is not sent again: reconcile-ledger.ts), writes the batch's new states to
 * the warehouse in bulk, then puts the open prompts in their agent jobs' lanes in file order and
 * adds the jobs of the lane heads. A recover job first rebuilds a batch Redis lost from the
 * ledger. Idempotent, so a re-run (crash, resend) only fills in what is missing: prompts already
 * synced are not written again, prompts already in a lane do not enter it twice.
 */
import { repairLaneHeads } from './lanes.js';
import type { PromptContext } from './prompt-context.js';
import type { BatchJobData } from './prompt-jobs.js';
import type { PromptRecord } from './prompt-record.js';
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

export async function startBatch(ctx: PromptContext, data: BatchJobData): Promise<StartedBatch> {
  let meta = await ctx.store.batchMeta(data.batchId);
  const rebuilt = !meta && data.recover === true;
  if (!meta && data.recover) meta = await rebuildBatch(ctx, data.batchId);
  if (!meta) {
    ctx.logger.warn({ event: 'prompts.batch_missing', batch: data.batchId, recover: data.recover === true }, data.recover ? 'batch not in the ledger: nothing to recover' : 'batch not in Redis');
    return { batchId: data.batchId, prompts: 0, laned: 0, adopted: 0, rebuilt: false };
  }
  const ids = await ctx.store.batchPromptIds(data.batchId);
  const read = (await ctx.store.readMany(ids)).filter((r): r is PromptRecord => r !== undefined);
  const { records, adopted } = await reconcileWithLedger(ctx, meta, read);
  await ctx.writer.write(records.filter((r) => r.syncedVersion < r.version));
  // Entering is a no-op for prompts already in a lane, but still names the lane's head, whose
  // job is (re-)added: a re-run repairs a hand-over that a crash interrupted.
  const open = records.filter((r) => !r.done);
  const waiting = open.filter((r) => !r.laned);
  const heads = await ctx.store.enterLanes(open);
  await repairLaneHeads(ctx.store, ctx.queue, heads, new Set(waiting.map((r) => r.promptId)));
  ctx.logger.info({ event: 'prompts.batch_started', batch: data.batchId, prompts: records.length, laned: waiting.length, heads: heads.length, adopted, rebuilt }, 'batch started');
  return { batchId: data.batchId, prompts: records.length, laned: waiting.length, adopted, rebuilt };
}
