/**
 * Whether a worker still holds the jobs that look active. BullMQ keeps an active job's lock alive
 * only while the worker running it renews it, so an active job without a lock was left by a
 * process that stopped (killed, suspended past its lock, its host gone). Only a running worker's
 * stalled check takes such a job back; until then the job, and the export run it carries, look
 * active. `status` says which they are.
 */
import type { Job, Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import { exportRunIds, jobIdOfRun } from '../export/enqueue.js';

/** Active jobs looked at: far more than an installation runs at once. */
const ACTIVE_LOOKED_AT = 1000;

export interface ActiveJob {
  job: Job;
  /** False when its lock expired: the worker that ran it stopped. */
  held: boolean;
}

/** Where a running export run's job stands: held by a live worker, stalled, or queued to run again. */
export type RunJob = 'held' | 'stalled' | 'queued';

/** A queue's active jobs, each with whether a worker still holds its lock. */
export async function activeJobs(queue: Queue, redis: Redis | Cluster): Promise<ActiveJob[]> {
  const active = (await queue.getActive(0, ACTIVE_LOOKED_AT - 1)).filter((job): job is Job => Boolean(job?.id));
  const locked = await Promise.all(active.map((job) => redis.exists(`${queue.toKey(job.id!)}:lock`)));
  return active.map((job, i) => ({ job, held: locked[i] === 1 }));
}

/**
 * For each running run: its job held by a worker, stalled, or queued again (waiting or delayed).
 * A run that no live job names is left out: its job may be on another id (an adopted run's) or
 * gone, which the next export worker's reaper settles.
 */
export async function runJobs(queue: Queue, active: readonly ActiveJob[], runIds: readonly string[]): Promise<Map<string, RunJob>> {
  const found = new Map<string, RunJob>();
  for (const { job, held } of active) {
    for (const runId of exportRunIds(job.data)) if (runIds.includes(runId)) found.set(runId, held ? 'held' : 'stalled');
  }
  for (const runId of runIds) {
    if (found.has(runId)) continue;
    const state = await queue.getJobState(jobIdOfRun(runId));
    if (state === 'waiting' || state === 'prioritized' || state === 'delayed') found.set(runId, 'queued');
  }
  return found;
}
