/**
 * `prompts resend BATCH --ambiguous | --prompt ID`: the explicit decision to send again prompts
 * whose delivery is unknown. Each becomes a new attempt (new job ids; jobs of the old attempt do
 * nothing). A prompt outside a chain goes back through its lane, behind whatever is queued for
 * that agent job now; a chain step that holds its chain is still at the head of its lane and is
 * sent first, after which the chain's held steps go on.
 */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { UsageError } from '../errors.js';
import { BatchNotFoundError } from './batch-status.js';
import { addBatchJob } from './prompt-jobs.js';
import type { PromptRecord } from './prompt-record.js';
import { PromptStore } from './prompt-store.js';

export interface ResendResult {
  batchId: string;
  /** Prompt ids made queued again. */
  resent: string[];
  /** Prompts of their chains that were held behind them and now go on. */
  released: string[];
  /** Ambiguous prompts still observed on their agent jobs: not final, so not resent yet. */
  observing: string[];
  /**
   * Resent prompts whose agent job was seen running, or changed, after the first send: that send
   * was most likely received, and the job may now run the prompt twice.
   */
  likelyReceived: string[];
}

/** Whether what was observed after an ambiguous send says the job ran it. */
function ranAfterSend(record: PromptRecord): boolean {
  if (record.observedActive) return true;
  return record.before !== undefined && record.lastStatus !== undefined && record.lastStatus !== record.before.status;
}

export interface ResendOptions {
  /** Only this prompt (it must be ambiguous); all ambiguous prompts when absent. */
  promptId?: string;
}

export async function resendAmbiguous(
  deps: { redis: Redis; queue: Queue; prefix: string },
  batchId: string,
  options: ResendOptions = {},
): Promise<ResendResult> {
  const store = new PromptStore(deps.redis, deps.prefix);
  if (!(await store.batchMeta(batchId))) throw new BatchNotFoundError(batchId);
  const records = (await store.readMany(await store.batchPromptIds(batchId))).filter((r): r is PromptRecord => r !== undefined);
  let chosen = records.filter((r) => r.status === 'ambiguous' && r.done);
  if (options.promptId !== undefined) {
    const one = records.find((r) => r.promptId === options.promptId);
    if (!one) throw new UsageError(`--prompt: ${options.promptId} is not a prompt of batch ${batchId}`);
    if (!chosen.includes(one)) {
      const state = one.status === 'ambiguous' ? 'ambiguous, still being observed' : one.status;
      throw new UsageError(`--prompt: ${options.promptId} is ${state}; only a final ambiguous prompt can be resent`);
    }
    chosen = [one];
  }
  const resent: string[] = [];
  const released: string[] = [];
  const likelyReceived: string[] = [];
  for (const record of chosen) {
    if (!(await store.resend(record.promptId, batchId))) continue;
    resent.push(record.promptId);
    if (ranAfterSend(record)) likelyReceived.push(record.promptId);
    // Its chain waits no more for a decision: the held steps queue behind the new attempt.
    for (const step of await store.chainAfter(record)) if (await store.setHeld(step, false)) released.push(step.promptId);
  }
  // The batch job writes the new states to the warehouse and starts the lanes' heads.
  if (resent.length > 0) await addBatchJob(deps.queue, batchId, await store.nextBatchGeneration(batchId));
  const observing = records.filter((r) => r.status === 'ambiguous' && !r.done).map((r) => r.promptId);
  return { batchId, resent, released, observing, likelyReceived };
}
