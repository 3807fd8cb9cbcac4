/**
 * Removes queued window jobs that have not started (no checkpoint): a backfill called off. Jobs
 * that started — running, or delayed while waiting for budget mid-window — finish, so nothing
 * half-loaded is abandoned.
 */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
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

/**
 * Takes a job out of the lists a worker fetches from (wait, paused, delayed, prioritized) in one
 * step: 1 when it was there, so no worker can start it any more; 0 when a worker already took it
 * (or it ended meanwhile). Reading the state and then removing left a gap in which a fast window
 * could run to completion and still be reported as removed.
 */
const TAKE_BACK_SCRIPT = `
if redis.call('LREM', KEYS[1], 0, ARGV[1]) > 0 then return 1 end
if redis.call('LREM', KEYS[2], 0, ARGV[1]) > 0 then return 1 end
if redis.call('ZREM', KEYS[3], ARGV[1]) > 0 then return 1 end
if redis.call('ZREM', KEYS[4], ARGV[1]) > 0 then return 1 end
return 0
`;

/** True when the job was still waiting and no worker can start it now (see TAKE_BACK_SCRIPT). */
export async function takeBackQueuedJob(queue: Queue, jobId: string): Promise<boolean> {
  const { wait, paused, delayed, prioritized } = queue.keys;
  // BullMQ's Redis backend runs on ioredis; its client type only lists what BullMQ itself calls.
  const client = (await queue.getBackend().client) as unknown as Redis;
  return Number(await client.eval(TAKE_BACK_SCRIPT, 4, wait!, paused!, delayed!, prioritized!, jobId)) === 1;
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
    if (!(await takeBackQueuedJob(queue, job.id!))) {
      inFlight++; // taken by a worker meanwhile
      continue;
    }
    await job.remove();
    removed.push(data as ExportJobData);
  }
  return { removed, inFlight };
}
