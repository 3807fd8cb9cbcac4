/**
 * `prompts recover BATCH`: asks a worker (it holds the warehouse; this needs only Redis) to
 * rebuild a batch Redis lost from the ledger, then to start it as a submission would: what was
 * never sent is sent, what was sent with a known job is polled to its outcome, what cannot be
 * known ends `ambiguous` (rebuild-batch.ts, reconcile-ledger.ts). A batch Redis still has is just
 * started again, which re-checks its lanes.
 */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { abortableSleep } from '../api/abortable-sleep.js';
import { MintpipeError } from '../errors.js';
import { addBatchJob, addRecoverJob } from './prompt-jobs.js';
import { PromptStore } from './prompt-store.js';
import type { StartedBatch } from './start-batch.js';

/** The ledger has no prompt of the batch: nothing to rebuild it from. */
export class BatchNotInLedgerError extends MintpipeError {
  override name = 'BatchNotInLedgerError';
  constructor(readonly batchId: string) {
    super(`batch ${batchId}: not in Redis and not in the ledger (never started, or another warehouse); submit its file again`);
  }
}

export interface RecoveryRequest {
  batchId: string;
  /** Redis still had the batch: it was only started again. */
  inRedis: boolean;
  /** The queue job that rebuilds and starts it. */
  jobId: string;
}

export interface RecoveryOptions {
  /** Runs before a rebuild is queued (the batch is not in Redis); throwing stops it. @default none */
  beforeRebuild?: () => Promise<void>;
}

export async function requestRecovery(deps: { redis: Redis; queue: Queue; prefix: string }, batchId: string, options: RecoveryOptions = {}): Promise<RecoveryRequest> {
  const store = new PromptStore(deps.redis, deps.prefix);
  if (await store.batchMeta(batchId)) {
    const generation = await store.nextBatchGeneration(batchId);
    await addBatchJob(deps.queue, batchId, generation);
    return { batchId, inRedis: true, jobId: `b-${batchId}-${generation}` };
  }
  await options.beforeRebuild?.();
  return { batchId, inRedis: false, jobId: await addRecoverJob(deps.queue, batchId) };
}

/**
 * Waits until the recovery job has run: resolves once the batch is back in Redis, rejects with
 * BatchNotInLedgerError when the job found nothing to rebuild, or when the job failed for good.
 */
export async function waitForRecovery(
  deps: { redis: Redis; queue: Queue; prefix: string },
  request: RecoveryRequest,
  options: { intervalMs?: number; signal?: AbortSignal } = {},
): Promise<void> {
  const store = new PromptStore(deps.redis, deps.prefix);
  for (;;) {
    options.signal?.throwIfAborted();
    // The state first, then the job: a job read before it finished has no return value yet, and
    // taken for a finished one it would say the ledger had nothing (and invite a second submit).
    const state = await deps.queue.getJobState(request.jobId);
    if (state === 'completed' || state === 'failed') {
      const job = await deps.queue.getJob(request.jobId);
      if (state === 'failed') throw new MintpipeError(`batch ${request.batchId}: recovery failed: ${job?.failedReason}`);
      if ((job?.returnvalue as StartedBatch | undefined)?.prompts && (await store.batchMeta(request.batchId))) return;
      throw new BatchNotInLedgerError(request.batchId);
    }
    await abortableSleep(options.intervalMs ?? 250, options.signal);
  }
}
