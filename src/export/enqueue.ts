/**
 * Enqueuing window exports. Each run gets a fresh job id (a completed job id would make a re-export
 * a silent no-op), while BullMQ de-duplication on the window key keeps a window from being in
 * flight twice: adding a window that is already queued or running returns the job that has it.
 */
import { randomBytes } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { ExportCheckpoint } from './export-window.js';
import { windowKey, type ExportWindow, type WindowKind } from './windows.js';

export interface ExportJobData extends ExportWindow {
  kind: WindowKind;
  runId: string;
  checkpoint?: ExportCheckpoint;
}

/** Lower runs first: nightly windows before late-data re-exports before manual backfills. */
export const PRIORITY: Record<WindowKind, number> = { nightly: 1, reexport: 5, manual: 10 };

export const WINDOW_JOB = 'window';

export interface EnqueuedWindow {
  window: ExportWindow;
  jobId: string;
  /** False when the window was already in flight and that job was kept. */
  added: boolean;
}

export function newRunId(window: ExportWindow): string {
  const project = window.projectId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40);
  return `${project}_${window.dateFrom}_${window.dateTo}_${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
}

export async function enqueueWindows(queue: Queue, windows: Array<ExportWindow & { kind: WindowKind }>): Promise<EnqueuedWindow[]> {
  const enqueued: EnqueuedWindow[] = [];
  for (const w of windows) enqueued.push(await enqueueWindow(queue, w));
  return enqueued;
}

async function enqueueWindow(queue: Queue, w: ExportWindow & { kind: WindowKind }): Promise<EnqueuedWindow> {
  const key = windowKey(w);
  // Two tries: a window whose in-flight job finishes between our add and our look-up is added again.
  for (let attempt = 0; ; attempt++) {
    const runId = newRunId(w);
    const data: ExportJobData = { projectId: w.projectId, dateFrom: w.dateFrom, dateTo: w.dateTo, kind: w.kind, runId };
    await queue.add(WINDOW_JOB, data, {
      jobId: runId,
      priority: PRIORITY[w.kind],
      deduplication: { id: key },
      attempts: 8,
      backoff: { type: 'exponential', delay: 2000 },
      removeOnComplete: { age: 14 * 86_400, count: 10_000 },
      removeOnFail: { age: 30 * 86_400 },
    });
    if (await queue.getJob(runId)) return { window: w, jobId: runId, added: true };
    const owner = await queue.getDeduplicationJobId(key);
    if (owner) return { window: w, jobId: owner, added: false };
    if (attempt >= 1) throw new Error(`could not enqueue window ${key}`);
  }
}
