/**
 * The batch job: writes the `queued` state of a submitted batch's prompts to the warehouse in
 * bulk, then puts the prompts in their agent jobs' lanes in file order and adds the jobs of the
 * lane heads. Idempotent, so a re-run (crash, resend) only fills in what is missing: prompts
 * already synced are not written again, prompts already in a lane do not enter it twice.
 */
import { repairLaneHeads } from './lanes.js';
import type { PromptContext } from './prompt-context.js';
import type { BatchJobData } from './prompt-jobs.js';
import type { PromptRecord } from './prompt-record.js';

export interface StartedBatch {
  batchId: string;
  prompts: number;
  /** Prompts that entered a lane in this run. */
  laned: number;
}

export async function startBatch(ctx: PromptContext, data: BatchJobData): Promise<StartedBatch> {
  const ids = await ctx.store.batchPromptIds(data.batchId);
  const records = (await ctx.store.readMany(ids)).filter((r): r is PromptRecord => r !== undefined);
  await ctx.writer.write(records.filter((r) => r.syncedVersion < r.version));
  // Entering is a no-op for prompts already in a lane, but still names the lane's head, whose
  // job is (re-)added: a re-run repairs a hand-over that a crash interrupted.
  const open = records.filter((r) => !r.done);
  const waiting = open.filter((r) => !r.laned);
  const heads = await ctx.store.enterLanes(open);
  await repairLaneHeads(ctx.store, ctx.queue, heads);
  ctx.logger.info({ event: 'prompts.batch_started', batch: data.batchId, prompts: records.length, laned: waiting.length, heads: heads.length }, 'batch started');
  return { batchId: data.batchId, prompts: records.length, laned: waiting.length };
}
