/** Follows window jobs to their end, showing progress; reads only Redis (works with remote workers). */
import type { Queue } from 'bullmq';
import type { EnqueuedWindow } from '../export/enqueue.js';
import type { WorkerWatch } from '../queue/worker-watch.js';
import { ProgressDisplay } from './progress-display.js';
import { windowProgress } from './window-progress.js';

export interface WindowResult {
  dataset: string;
  projectId: string;
  dateFrom: string;
  dateTo: string;
  jobId: string;
  /**
   * How the window's run ended, in `export_runs`' words: `complete` or `failed`; `missing` when its
   * job was lost from Redis (no run status to report).
   */
  status: 'complete' | 'failed' | 'missing';
  rows?: number;
  pages?: number;
  requests?: number;
  error?: string;
}

export interface WaitOptions {
  /** Pause between two looks at Redis. @default 250 */
  pollMs?: number;
  /**
   * Subscribes to "a job may have ended" (the events of this process's own workers), so the next
   * look comes at once instead of after the pause; returns the unsubscribe. @default none: polling only
   */
  subscribe?: (wake: () => void) => () => void;
  /**
   * Following workers of other processes: when it lapses (no worker served the queue for its grace
   * period), the wait stops and throws `unserved(left)`. @default none: waits for as long as it takes
   */
  watch?: { workers: WorkerWatch; unserved: (left: EnqueuedWindow[]) => Error };
  /** Shows the progress. @default a ProgressDisplay on stderr */
  display?: ProgressDisplay;
  /** The clock, for the seconds a delayed window has left. @default Date.now */
  now?: () => number;
}

export async function waitForWindows(queue: Queue, enqueued: EnqueuedWindow[], options: WaitOptions = {}): Promise<WindowResult[]> {
  const pollMs = options.pollMs ?? 250;
  const display = options.display ?? new ProgressDisplay();
  const now = options.now ?? Date.now;
  const results = new Map<string, WindowResult>();
  let woken = false;
  let wakeNow: (() => void) | undefined;
  const unsubscribe = options.subscribe?.(() => {
    woken = true;
    wakeNow?.();
  });
  // A wake-up sweeps again at once, but never sooner than this after the last sweep began: many
  // windows ending one after another must not turn into back-to-back sweeps (two reads per window).
  const minGapMs = Math.min(pollMs, 50);
  let sweptAt = 0;
  const pause = async () => {
    let timer: NodeJS.Timeout | undefined;
    if (!woken) {
      await new Promise<void>((resolve) => {
        wakeNow = resolve;
        timer = setTimeout(resolve, pollMs);
      });
      clearTimeout(timer);
      wakeNow = undefined;
    }
    const gapLeft = sweptAt + minGapMs - performance.now();
    if (gapLeft > 0) await new Promise((resolve) => setTimeout(resolve, gapLeft));
    woken = false;
  };
  try {
    while (results.size < enqueued.length) {
      sweptAt = performance.now();
      for (const e of enqueued) {
        if (results.has(e.jobId)) continue;
        const label = `${e.window.dataset} ${e.window.projectId} ${e.window.dateFrom}..${e.window.dateTo}`;
        // The state first, then the job: a job read before it finished has no return value yet.
        const state = await queue.getJobState(e.jobId);
        const job = await queue.getJob(e.jobId);
        const base = { dataset: e.window.dataset, projectId: e.window.projectId, dateFrom: e.window.dateFrom, dateTo: e.window.dateTo, jobId: e.jobId };
        if (!job || state === 'unknown') {
          results.set(e.jobId, {
            ...base,
            status: 'missing',
            error: 'lost from Redis — was it restarted without persistence? Run the same `mintpipe export` again: the window resumes from what the warehouse kept',
          });
          continue;
        }
        if (state === 'completed') {
          const value = job.returnvalue as { rows: number; pages: number; requests: number };
          results.set(e.jobId, { ...base, status: 'complete', rows: value?.rows, pages: value?.pages, requests: value?.requests });
          display.update(label, { done: true, detail: `done ${value?.rows ?? 0} rows`, state: 'done' });
        } else if (state === 'failed') {
          results.set(e.jobId, { ...base, status: 'failed', error: job.failedReason });
          display.update(label, { done: true, detail: `failed: ${job.failedReason}`, state: 'failed' });
        } else {
          display.update(label, { done: false, ...windowProgress(state, job, now()) });
        }
      }
      if (results.size === enqueued.length) break;
      if (await options.watch?.workers.lapsed()) throw options.watch!.unserved(enqueued.filter((e) => !results.has(e.jobId)));
      await pause();
    }
  } finally {
    unsubscribe?.();
    display.stop();
  }
  return enqueued.map((e) => results.get(e.jobId)!);
}
