/**
 * Removes queued window jobs that have not started (no checkpoint): a backfill called off. Jobs
 * that started — running, or delayed while waiting for budget mid-window — finish, so nothing
 * half-loaded is abandoned.
 */
import type { Queue } from 'bullmq';
import type { DatasetName } from '../datasets/index.js';
import type { ExportJobData } from './enqueue.js';

export interface CancelFilter {
  projects: readonly string[];
  /** Only these datasets. @default all */
  datasets?: readonly DatasetName[];
  /** Only windows starting on or after. */
  from?: string;
  /** Only windows ending on or before (exclusive end). */
  to?: string;
}

export interface CancelResult {
  removed: ExportJobData[];
  /** Matching windows left alone because they already started. */
  inFlight: number;
}

export async function cancelWindows(queue: Queue, filter: CancelFilter): Promise<CancelResult> {
  const jobs = await queue.getJobs(['waiting', 'prioritized', 'delayed', 'active']);
  const removed: ExportJobData[] = [];
  let inFlight = 0;
  for (const job of jobs) {
    const data = job.data as Partial<ExportJobData> | undefined;
    if (!data?.dataset || !data.projectId || !data.dateFrom || !data.dateTo) continue;
    if (!filter.projects.includes(data.projectId)) continue;
    if (filter.datasets && !filter.datasets.includes(data.dataset)) continue;
    if (filter.from && data.dateFrom < filter.from) continue;
    if (filter.to && data.dateTo > filter.to) continue;
    const state = await job.getState();
    if (state === 'active' || data.checkpoint) {
      inFlight++;
      continue;
    }
    try {
      await job.remove();
      removed.push(data as ExportJobData);
    } catch {
      inFlight++; // taken by a worker meanwhile
    }
  }
  return { removed, inFlight };
}
