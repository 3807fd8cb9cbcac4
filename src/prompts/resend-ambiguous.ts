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
import { jobChanged } from './job-changes.js';
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
   * Ambiguous prompts whose agent job was seen running, or changed, after the first send (that send
   * was most likely received: sent again, the job may run it twice), each with what was seen.
   */
  likelyReceived: Array<{ promptId: string; seen: string }>;
  /** Ambiguous prompts whose receipt cannot be checked: creates, and sends with no look before them. */
  uncheckable: Array<{ promptId: string; why: string }>;
  /** Flagged (likely received or uncheckable) and therefore not resent: `--include-received` sends them. */
  withheld: string[];
}

/** What observed after an ambiguous send says the job ran it; undefined when nothing does. */
function signOfReceipt(record: PromptRecord): string | undefined {
  if (record.observedActive) return 'its agent job was seen active';
  if (!record.before || record.lastStatus === undefined) return undefined;
  // A settled prompt keeps no PR link when nothing moved (its job's link is earlier work): none is no change.
  const changes = jobChanged(record.before, { status: record.lastStatus, prLink: record.prLink ?? record.before.prLink, archivedAt: record.lastArchivedAt });
  return changes.length > 0 ? changes.join(', ') : undefined;
}

/** Why receipt of an ambiguous send cannot be checked; undefined when it can. */
function uncheckableWhy(record: PromptRecord): string | undefined {
  if (record.kind === 'create') return 'a create: a job it may have made is not found by looking';
  if (!record.before) return 'its agent job was not seen before the send';
  return undefined;
}

export interface ResendOptions {
  /** Only this prompt (it must be ambiguous); all ambiguous prompts when absent. */
  promptId?: string;
  /** With all ambiguous prompts: also those likely received or that cannot be checked. @default false */
  includeReceived?: boolean;
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
  const likelyReceived: ResendResult['likelyReceived'] = [];
  const uncheckable: ResendResult['uncheckable'] = [];
  const withheld: string[] = [];
  for (const record of chosen) {
    const seen = signOfReceipt(record);
    const why = seen === undefined ? uncheckableWhy(record) : undefined;
    if (seen !== undefined) likelyReceived.push({ promptId: record.promptId, seen });
    if (why !== undefined) uncheckable.push({ promptId: record.promptId, why });
    // Naming one prompt is the explicit decision; --ambiguous sends a flagged one only when told.
    if ((seen !== undefined || why !== undefined) && options.promptId === undefined && !options.includeReceived) {
      withheld.push(record.promptId);
      continue;
    }
    if (!(await store.resend(record.promptId, batchId))) continue;
    resent.push(record.promptId);
    // Its chain waits no more for a decision: the held steps queue behind the new attempt.
    for (const step of await store.chainAfter(record)) if (await store.setHeld(step, false)) released.push(step.promptId);
  }
  // The batch job writes the new states to the warehouse and starts the lanes' heads.
  if (resent.length > 0) await addBatchJob(deps.queue, batchId, await store.nextBatchGeneration(batchId));
  const observing = records.filter((r) => r.status === 'ambiguous' && !r.done).map((r) => r.promptId);
  return { batchId, resent, released, observing, likelyReceived, uncheckable, withheld };
}
