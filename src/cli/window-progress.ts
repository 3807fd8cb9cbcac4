/**
 * What a follower shows of one window's job: its state in words (what a line off a TTY is printed
 * for) and the detail with the counts that move. A delayed job says what it waits for when its
 * progress tells: the request budget or its source dataset's run, written by the processor with the
 * attempt it belongs to; a delay of a later attempt is BullMQ's retry after a failure.
 */
import type { Job } from 'bullmq';
import type { WaitingFor } from '../export/export-types.js';

export interface WindowProgress {
  state: string;
  detail: string;
}

interface ProgressData {
  rows?: number;
  waitingFor?: WaitingFor;
  attempt?: number;
}

const WAITING_FOR: Record<WaitingFor, string> = {
  budget: 'waiting for the request budget',
  source: "waiting for its source dataset's run",
};

/** The progress of a job that is neither completed nor failed, in BullMQ `state`, at `nowMs`. */
export function windowProgress(state: string, job: Job, nowMs: number): WindowProgress {
  const progress = (typeof job.progress === 'object' && job.progress !== null ? job.progress : {}) as ProgressData;
  const rows = `${progress.rows ?? 0} rows`;
  if (state !== 'delayed') {
    const words = state === 'active' ? 'running' : state === 'waiting' || state === 'prioritized' ? 'queued' : state;
    return { state: words, detail: `${words}, ${rows}` };
  }
  const leftS = Math.max(0, Math.ceil((job.timestamp + (job.delay ?? 0) - nowMs) / 1000));
  const words = delayedFor(job, progress);
  return { state: words, detail: `${words} (${leftS}s left), ${rows}` };
}

function delayedFor(job: Job, progress: ProgressData): string {
  if (progress.waitingFor !== undefined && progress.attempt === job.attemptsMade) return WAITING_FOR[progress.waitingFor] ?? 'delayed';
  if (job.attemptsMade > 0) return `waiting to retry after a failure (attempt ${job.attemptsMade + 1} of ${job.opts.attempts ?? 1})`;
  return 'delayed';
}
