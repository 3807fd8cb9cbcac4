/**
 * Enqueuing window exports. Each run gets a fresh job id (a completed job id would make a re-export
 * a silent no-op), while BullMQ de-duplication on the window key — (dataset, project, window) —
 * keeps a window from being in flight twice: adding one that is already queued or running returns
 * the job that has it.
 */
import { randomBytes } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { JobUpstream } from '../queue/job-upstream.js';
import { JOB_ATTEMPTS } from '../queue/crash-budget.js';
import { DATASET_NAMES, type DatasetName } from '../datasets/index.js';
import type { ExportCheckpoint } from './export-window.js';
import { windowKey, type ExportWindow, type WindowKind } from './windows.js';

export interface ExportJobData extends ExportWindow {
  kind: WindowKind;
  runId: string;
  checkpoint?: ExportCheckpoint;
  /** Where the enqueuing shell sends (when it named an upstream): only a worker sending there runs it. */
  upstream?: JobUpstream;
}

/** Priority base per kind (lower runs first): nightly windows before late-data re-exports before manual backfills. */
export const PRIORITY: Record<WindowKind, number> = { nightly: 1, reexport: 100, manual: 200 };

export const WINDOW_JOB = 'window';

export interface EnqueuedWindow {
  window: ExportWindow;
  jobId: string;
  /** False when the window was already in flight and that job was kept. */
  added: boolean;
}

export interface EnqueueOptions {
  /** Datasets in the order they should run within a kind (MINTPIPE_DATASETS). @default DATASET_NAMES */
  datasetOrder?: readonly DatasetName[];
  /** Recorded on each job (src/queue/job-upstream.ts). */
  upstream?: JobUpstream;
}

export function newRunId(window: ExportWindow): string {
  const project = window.projectId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40);
  return `${window.dataset}_${project}_${window.dateFrom}_${window.dateTo}_${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
}

/** The run ids a window job names: the run it started with, and the one it is on. */
export function exportRunIds(data: unknown): string[] {
  const job = data as { runId?: unknown; checkpoint?: { runId?: unknown } } | undefined;
  return [job?.runId, job?.checkpoint?.runId].filter((id): id is string => typeof id === 'string');
}

/** The id of the job a run started in: its first run id (`.rN` restarts and `.fN` retries append to it). */
export function jobIdOfRun(runId: string): string {
  return runId.replace(/(\.[rf]\d+)+$/, '');
}

/** BullMQ priority of a window: its kind first, then its dataset's place in the order. */
export function windowPriority(kind: WindowKind, dataset: DatasetName, order: readonly DatasetName[] = DATASET_NAMES): number {
  const place = order.indexOf(dataset);
  return PRIORITY[kind] + (place === -1 ? order.length : place);
}

export async function enqueueWindows(
  queue: Queue,
  windows: Array<ExportWindow & { kind: WindowKind }>,
  options: EnqueueOptions = {},
): Promise<EnqueuedWindow[]> {
  const enqueued: EnqueuedWindow[] = [];
  for (const w of windows) enqueued.push(await enqueueWindow(queue, w, options));
  return enqueued;
}

async function enqueueWindow(queue: Queue, w: ExportWindow & { kind: WindowKind }, options: EnqueueOptions): Promise<EnqueuedWindow> {
  const key = windowKey(w);
  // Two tries: a window whose in-flight job finishes between our add and our look-up is added again.
  for (let attempt = 0; ; attempt++) {
    const runId = newRunId(w);
    const data: ExportJobData = { dataset: w.dataset, projectId: w.projectId, dateFrom: w.dateFrom, dateTo: w.dateTo, kind: w.kind, runId, ...(options.upstream ? { upstream: options.upstream } : {}) };
    await queue.add(WINDOW_JOB, data, {
      jobId: runId,
      priority: windowPriority(w.kind, w.dataset, options.datasetOrder),
      deduplication: { id: key },
      attempts: JOB_ATTEMPTS,
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
