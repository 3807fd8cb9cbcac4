/**
 * Removes the window jobs of a backfill that no worker is running and whose current run fetched
 * nothing: queued ones never started, and ones delayed while waiting for budget or a retry before
 * their run's first page, or left active by a worker that died. A window whose run fetched pages
 * finishes, so nothing half-loaded is abandoned; one a live worker holds right now (its lock) is in
 * flight and finishes too.
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
  /** Windows taken out of the queue, the waiting ones included. */
  removed: ExportJobData[];
  /**
   * Of `removed`, the windows whose run had started and was waiting (for budget or a retry) with
   * no page fetched: their runs still say `running` until they are ended (end-cancelled-runs.ts).
   */
  waiting: ExportJobData[];
  /** Matching windows left alone: a worker holds them, or their run fetched pages. */
  inFlight: number;
}

/**
 * Takes a job out of the lists a worker fetches from (wait, paused, delayed, prioritized) in one
 * step: 1 when it was there, so no worker can start it any more; 0 when a worker already took it
 * (or it ended meanwhile); 2 when its checkpoint says its run fetched pages, which it keeps. An
 * active job whose lock is gone belongs to no live worker (its worker died; BullMQ would find it
 * stalled and run it again): it is taken back from the active list like a waiting one. Reading
 * the state (or the checkpoint) and then removing left a gap in which a worker could take the job,
 * fetch pages and put it back delayed, or run it to completion, and it would still be removed.
 */
const TAKE_BACK_SCRIPT = `
local raw = redis.call('HGET', KEYS[5], 'data')
if raw then
  local ok, data = pcall(cjson.decode, raw)
  local cp = ok and type(data) == 'table' and data['checkpoint']
  if type(cp) == 'table' then
    local fetched = (tonumber(cp['pages']) or 0) > 0 or (tonumber(cp['rows']) or 0) > 0 or (tonumber(cp['offset']) or 0) > 0
    if fetched or (type(cp['cursor']) == 'string' and cp['cursor'] ~= '') then return 2 end
  end
end
if redis.call('EXISTS', KEYS[5] .. ':lock') == 0 and redis.call('LREM', KEYS[6], 0, ARGV[1]) > 0 then return 1 end
if redis.call('LREM', KEYS[1], 0, ARGV[1]) > 0 then return 1 end
if redis.call('LREM', KEYS[2], 0, ARGV[1]) > 0 then return 1 end
if redis.call('ZREM', KEYS[3], ARGV[1]) > 0 then return 1 end
if redis.call('ZREM', KEYS[4], ARGV[1]) > 0 then return 1 end
return 0
`;

/**
 * True when the job was still waiting, its run had fetched nothing, and no worker can start it now
 * (see TAKE_BACK_SCRIPT).
 */
export async function takeBackQueuedJob(queue: Queue, jobId: string): Promise<boolean> {
  const { wait, paused, delayed, prioritized, active } = queue.keys;
  // BullMQ's Redis backend runs on ioredis; its client type only lists what BullMQ itself calls.
  const client = (await queue.getBackend().client) as unknown as Redis;
  const taken = await client.eval(TAKE_BACK_SCRIPT, 6, wait!, paused!, delayed!, prioritized!, queue.toKey(jobId), active!, jobId);
  return Number(taken) === 1;
}

function matches(data: Partial<ExportJobData> | undefined, filter: CancelFilter): data is ExportJobData {
  if (!data?.dataset || !data.projectId || !data.dateFrom || !data.dateTo) return false;
  if (!filter.projects.includes(data.projectId)) return false;
  if (filter.datasets && !filter.datasets.includes(data.dataset)) return false;
  if (filter.from && data.dateFrom < filter.from) return false;
  return !(filter.to && data.dateTo > filter.to);
}

export async function cancelWindows(queue: Queue, filter: CancelFilter): Promise<CancelResult> {
  const jobs = await queue.getJobs(['waiting', 'prioritized', 'delayed', 'active']);
  const result: CancelResult = { removed: [], waiting: [], inFlight: 0 };
  for (const job of jobs) {
    if (!matches(job.data as Partial<ExportJobData> | undefined, filter)) continue;
    if (!(await takeBackQueuedJob(queue, job.id!))) {
      result.inFlight++; // held by a worker, or its run fetched pages
      continue;
    }
    // Read again: a worker may have moved the job on since it was listed, and cannot any more.
    const taken = (await queue.getJob(job.id!)) ?? job;
    const data = taken.data as ExportJobData;
    await taken.remove();
    result.removed.push(data);
    if (data.checkpoint) result.waiting.push(data);
  }
  return result;
}
