/** A batch's state from Redis (fast, works while workers run elsewhere): counts and each prompt. */
import type { Redis } from 'ioredis';
import { MintpipeError } from '../errors.js';
import type { PromptRecord } from './prompt-record.js';
import { PromptStore } from './prompt-store.js';
import { PROMPT_STATUSES, type PromptStatus } from './prompt-status.js';

/** A batch id that Redis does not know (never submitted, or under another queue prefix). */
export class BatchNotFoundError extends MintpipeError {
  override name = 'BatchNotFoundError';
  override exitCode = 2;
  constructor(readonly batchId: string) {
    super(`batch ${batchId}: not found (was it submitted with another MINTPIPE_QUEUE_PREFIX?)`);
  }
}

export interface PromptSummary {
  promptId: string;
  position: number;
  projectId: string;
  jobId: string;
  status: PromptStatus;
  /** The outcome is final. */
  done: boolean;
  prLink: string | null;
  sentAt: string | null;
  finishedAt: string | null;
  polls: number;
  error: string | null;
}

export interface BatchStatus {
  batchId: string;
  source: string;
  total: number;
  /** Prompts whose outcome is final. */
  done: number;
  byStatus: Record<PromptStatus, number>;
  /** Every prompt, in file order (only when asked for). */
  prompts?: PromptSummary[];
  /** Final prompts other than `completed`, in file order (only when asked for). */
  failures?: PromptSummary[];
}

export interface BatchStatusOptions {
  /** Also read every prompt's record (costs one read per prompt). @default false */
  prompts?: boolean;
}

export function summarize(record: PromptRecord): PromptSummary {
  const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
  return {
    promptId: record.promptId,
    position: record.position,
    projectId: record.projectId,
    jobId: record.jobId,
    status: record.status,
    done: record.done,
    prLink: record.prLink,
    sentAt: iso(record.sentAtMs),
    finishedAt: iso(record.finishedAtMs),
    polls: record.polls,
    error: record.error ?? null,
  };
}

export async function batchStatus(redis: Redis, prefix: string, batchId: string, options: BatchStatusOptions = {}): Promise<BatchStatus> {
  const store = new PromptStore(redis, prefix);
  const meta = await store.batchMeta(batchId);
  if (!meta) throw new BatchNotFoundError(batchId);
  const counts = await store.batchCounts(batchId);
  const status: BatchStatus = { batchId, source: meta.source, total: meta.total, done: counts.done, byStatus: counts.byStatus };
  if (!options.prompts) return status;
  const records = (await store.readMany(await store.batchPromptIds(batchId))).filter((r): r is PromptRecord => r !== undefined);
  const prompts = records.map(summarize);
  return { ...status, prompts, failures: prompts.filter((p) => p.done && p.status !== 'completed') };
}

/** Statuses in their display order, only those with prompts. */
export function nonZeroCounts(byStatus: Record<PromptStatus, number>): Array<[PromptStatus, number]> {
  return PROMPT_STATUSES.filter((s) => byStatus[s] > 0).map((s) => [s, byStatus[s]]);
}
