/** Follows a batch until every prompt's outcome is final, reading only Redis (workers may be remote). */
import type { Redis } from 'ioredis';
import { batchStatus, type BatchStatus } from './batch-status.js';

export interface WaitOptions {
  /** Called after every look, with the batch's counts. */
  onProgress?: (status: BatchStatus) => void;
  /** Time between looks. @default 250 */
  intervalMs?: number;
  /** Stops waiting (rejects with the signal's reason). */
  signal?: AbortSignal;
}

/** Resolves with the final status (every prompt listed) once all prompts are final. */
export async function waitForBatch(redis: Redis, prefix: string, batchId: string, options: WaitOptions = {}): Promise<BatchStatus> {
  const intervalMs = options.intervalMs ?? 250;
  for (;;) {
    options.signal?.throwIfAborted();
    const status = await batchStatus(redis, prefix, batchId);
    options.onProgress?.(status);
    if (status.done >= status.total) return batchStatus(redis, prefix, batchId, { prompts: true });
    await pause(intervalMs, options.signal);
  }
}

/** Waits `ms`, or rejects as soon as the signal aborts (the listener is removed either way). */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
