/**
 * The batch job: asks the ledger about the prompts that never moved in Redis (a row that reached
 * `sending` or later is not sent again: reconcile-ledger.ts), writes the batch's new states to
 * the warehouse in bulk, then puts the open prompts in their agent jobs' lanes in file order,
 * sends the first new lane heads itself (each under a guard job, as a hand-over does) and adds the
 * jobs of the other heads. A recover job first rebuilds a batch Redis lost from the ledger.
 * Idempotent, so a re-run (crash, resend) only fills in what is missing: prompts already synced
 * are not written again, prompts already in a lane do not enter it twice, and a head whose send
 * this job did not finish is left to its guard job (due a send's longest time after it was added).
 */
import { repairLaneHeads, sendWithGuards } from './lanes.js';
import { clearFinishedPromptJobs } from './prompt-jobs.js';
import type { PromptContext } from './prompt-context.js';
import type { BatchJobData } from './prompt-jobs.js';
import type { PromptRecord } from './prompt-record.js';
import { sendInThisRun } from './prompt-step.js';
import { rebuildBatch } from './rebuild-batch.js';
import { reconcileWithLedger } from './reconcile-ledger.js';

/**
 * Lane heads the batch job sends itself, rather than adding their jobs for workers to fetch one
 * by one (BullMQ fetches a worker's jobs in sequence: 250 jobs took ~90 ms before the first ran).
 * A batch with more lanes leaves the rest to their jobs, so many workers share its first round.
 */
const FIRST_SENDS_IN_BATCH_JOB = 256;

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
  /** Most new lane heads this job sends itself; 0 leaves every head to its job. @default 256 */
  sendFirst?: number;
}

export async function startBatch(ctx: PromptContext, data: BatchJobData, options: StartBatchOptions = {}): Promise<StartedBatch> {
  let meta = await ctx.store.batchMeta(data.batchId);
  const rebuilt = !meta && data.recover === true;
  if (!meta && data.recover) meta = await rebuildBatch(ctx, data.batchId);
  if (!meta) {
    ctx.logger.warn({ event: 'prompts.batch_missing', batch: data.batchId, recover: data.recover === true }, data.recover ? 'batch not in the ledger: nothing to recover' : 'batch not in Redis');
    return { batchId: data.batchId, prompts: 0, laned: 0, adopted: 0, rebuilt: false };
  }
  const ids = await ctx.store.batchPromptIds(data.batchId);
  const read = (await ctx.store.readMany(ids)).filter((r): r is PromptRecord => r !== undefined);
  const { records, adopted, startedBefore } = await reconcileWithLedger(ctx, meta, read);
  await ctx.writer.write(records.filter((r) => r.syncedVersion < r.version));
  // Made again after Redis lost it: a job left finished for one of its prompts would block the new one.
  if (startedBefore) await clearFinishedPromptJobs(ctx.queue, records.filter((r) => !r.done));
  // Entering is a no-op for prompts already in a lane, but still names the lane's head, whose
  // job is (re-)added: a re-run repairs a hand-over that a crash interrupted.
  const open = records.filter((r) => !r.done);
  const waiting = open.filter((r) => !r.laned);
  const { heads, firstInLane } = await ctx.store.enterLanes(open);
  const fresh = new Set(waiting.map((r) => r.promptId));
  // Prompts that entered an empty lane are its head, have no job yet, and no run of an earlier
  // prompt hands the lane on to them: the first of them are sent here.
  const sendNow = (await ctx.store.readMany([...firstInLane].slice(0, options.sendFirst ?? FIRST_SENDS_IN_BATCH_JOB))).filter(
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
