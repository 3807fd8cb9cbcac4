/** A batch's state from Redis (fast, works while workers run elsewhere): counts and each prompt. */
import type { Redis } from 'ioredis';
import { MintpipeError } from '../errors.js';
import type { PromptKind } from './plan-chains.js';
import type { PromptRecord } from './prompt-record.js';
import { PromptStore } from './prompt-store.js';
import { PROMPT_STATUSES, type PromptStatus } from './prompt-status.js';

/**
 * A batch id that Redis does not know. Most often Redis lost it (restarted without persistence,
 * or evicted), and the ledger can rebuild it: a runtime failure (exit 1) that names the command
 * that recovers. Less often it was submitted under another queue prefix, or never.
 */
export class BatchNotFoundError extends MintpipeError {
  override name = 'BatchNotFoundError';
  override exitCode = 1;
  constructor(readonly batchId: string) {
    super(
      `batch ${batchId}: lost from Redis — was it restarted without persistence? \`mintpipe prompts recover ${batchId}\` rebuilds it from the ledger (or check MINTPIPE_QUEUE_PREFIX)`,
    );
  }
}

export interface PromptSummary {
  promptId: string;
  position: number;
  /** 1-based line of the file; null when not from a file. */
  line: number | null;
  projectId: string;
  /** The agent job; '' while a create (or its chain's follow-up) has none yet. */
  jobId: string;
  kind: PromptKind;
  chain: string | null;
  status: PromptStatus;
  /** Queued, but waiting behind the ambiguous step of its chain: sent only after that step is resent. */
  held: boolean;
  /** The ambiguous step a held prompt waits behind. */
  heldBehind: string | null;
  /** The outcome is final. */
  done: boolean;
  prLink: string | null;
  sentAt: string | null;
  finishedAt: string | null;
  polls: number;
  error: string | null;
  /** The earlier batch that sent this same row (the ledger said so): not sent again by this one. */
  sentBy: string | null;
}

/** One chain of the batch: its steps so far, where it stands, and the pull requests it opened. */
export interface ChainSummary {
  chain: string;
  projectId: string;
  /** The chain's agent job; null while its create has not answered. */
  jobId: string | null;
  steps: number;
  completed: number;
  /** waiting (nothing sent), running, completed (every step), stopped (a step did not complete), held (behind an ambiguous step). */
  state: 'waiting' | 'running' | 'completed' | 'stopped' | 'held';
  prLinks: string[];
}

export interface BatchStatus {
  batchId: string;
  source: string;
  total: number;
  /** Prompts whose outcome is final. */
  done: number;
  /** Prompts held behind an ambiguous step of their chain (queued; sent once that step is resent). */
  held: number;
  byStatus: Record<PromptStatus, number>;
  /** Why the batch job gave up before it started the batch (`prompts recover` starts it again); absent otherwise. */
  startFailure?: { reason: string; at: string };
  /** Every prompt, in file order (only when asked for). */
  prompts?: PromptSummary[];
  /** Final prompts other than `completed`, in file order (only when asked for). */
  failures?: PromptSummary[];
  /** Every chain, in file order of its first row (only when asked for, and when the batch has chains). */
  chains?: ChainSummary[];
}

export interface BatchStatusOptions {
  /** Also read every prompt's record (costs one read per prompt). @default false */
  prompts?: boolean;
}

export function summarize(record: PromptRecord, heldBehind: string | null = null): PromptSummary {
  const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
  return {
    promptId: record.promptId,
    position: record.position,
    line: record.line ?? null,
    projectId: record.projectId,
    jobId: record.jobId,
    kind: record.kind,
    chain: record.chain ?? null,
    status: record.status,
    held: record.held,
    heldBehind: record.held ? heldBehind : null,
    done: record.done,
    prLink: record.prLink,
    sentAt: iso(record.sentAtMs),
    finishedAt: iso(record.finishedAtMs),
    polls: record.polls,
    error: record.error ?? null,
    sentBy: record.sentBy ?? null,
  };
}

export async function batchStatus(redis: Redis, prefix: string, batchId: string, options: BatchStatusOptions = {}): Promise<BatchStatus> {
  const store = new PromptStore(redis, prefix);
  const meta = await store.batchMeta(batchId);
  if (!meta) throw new BatchNotFoundError(batchId);
  const counts = await store.batchCounts(batchId);
  const failed = meta.startFailure;
  const status: BatchStatus = {
    batchId,
    source: meta.source,
    total: meta.total,
    done: counts.done,
    held: counts.held,
    byStatus: counts.byStatus,
    ...(failed ? { startFailure: { reason: failed.reason, at: new Date(failed.atMs).toISOString() } } : {}),
  };
  if (!options.prompts) return status;
  const records = (await store.readMany(await store.batchPromptIds(batchId))).filter((r): r is PromptRecord => r !== undefined);
  const byChain = new Map<string, PromptRecord[]>();
  for (const r of records) if (r.chainHead) byChain.set(r.chainHead, [...(byChain.get(r.chainHead) ?? []), r]);
  // A held prompt waits behind the ambiguous step of its chain (the one still holding the lane).
  const blocker = (r: PromptRecord) => byChain.get(r.chainHead ?? '')?.find((s) => s.status === 'ambiguous' && s.done)?.promptId ?? null;
  const prompts = records.map((r) => summarize(r, r.held ? blocker(r) : null));
  const chains = [...byChain.values()].map(chainSummary);
  return { ...status, prompts, failures: prompts.filter((p) => p.done && p.status !== 'completed'), ...(chains.length > 0 ? { chains } : {}) };
}

function chainSummary(steps: PromptRecord[]): ChainSummary {
  const first = steps[0]!;
  const completed = steps.filter((s) => s.status === 'completed').length;
  const state: ChainSummary['state'] =
    completed === steps.length
      ? 'completed'
      : steps.some((s) => s.held)
        ? 'held'
        : steps.some((s) => s.done && s.status !== 'completed')
          ? 'stopped'
          : steps.some((s) => s.sentAtMs !== undefined || s.done)
            ? 'running'
            : 'waiting';
  return {
    chain: first.chain ?? '',
    projectId: first.projectId,
    jobId: first.jobId || null,
    steps: steps.length,
    completed,
    state,
    prLinks: [...new Set(steps.map((s) => s.prLink).filter((l): l is string => !!l))],
  };
}

/** Statuses in their display order, only those with prompts. */
export function nonZeroCounts(byStatus: Record<PromptStatus, number>): Array<[PromptStatus, number]> {
  return PROMPT_STATUSES.filter((s) => byStatus[s] > 0).map((s) => [s, byStatus[s]]);
}
