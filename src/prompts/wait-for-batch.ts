/**
 * Follows a batch until every prompt's outcome is final or held behind an ambiguous step of its
 * chain (only an explicit resend or cancel moves those), reading only Redis (workers may be remote).
 * A batch whose batch job gave up starting it moves only on `prompts recover`: following it stops.
 */
import type { Redis } from 'ioredis';
import { batchStatus, type BatchStatus } from './batch-status.js';
import { BatchStartFailedError } from './batch-start-failure.js';
import { abortableSleep } from '../api/abortable-sleep.js';
import type { WorkerWatch } from '../queue/worker-watch.js';

export interface WaitOptions {
  /** Called after every look, with the batch's counts. */
  onProgress?: (status: BatchStatus) => void;
  /** Time between looks. @default 250 */
  intervalMs?: number;
  /** Stops waiting (rejects with the signal's reason). */
  signal?: AbortSignal;
  /**
   * Following workers of other processes: when it lapses (no worker served the queue for its grace
   * period), the wait stops and throws `unserved(status)`. @default none: waits for as long as it takes
   */
  watch?: { workers: WorkerWatch; unserved: (status: BatchStatus) => Error };
}

/**
 * Resolves with the final status (every prompt listed) once all prompts are final or held; rejects
 * with BatchStartFailedError when the batch's start failed for good.
 */
export async function waitForBatch(redis: Redis, prefix: string, batchId: string, options: WaitOptions = {}): Promise<BatchStatus> {
  const intervalMs = options.intervalMs ?? 250;
  for (;;) {
    options.signal?.throwIfAborted();
    const status = await batchStatus(redis, prefix, batchId);
    options.onProgress?.(status);
    if (status.done + status.held >= status.total) return batchStatus(redis, prefix, batchId, { prompts: true });
    if (status.startFailure) throw new BatchStartFailedError(batchId, status.startFailure.reason, status.byStatus.queued);
    if (await options.watch?.workers.lapsed()) throw options.watch!.unserved(status);
    await abortableSleep(intervalMs, options.signal);
  }
}
