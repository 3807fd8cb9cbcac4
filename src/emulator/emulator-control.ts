/** The test-facing control surface: script faults, change data and jobs, tune faults at runtime. */
import type { AgentJob } from './agent-job.js';
import type { AgentJobPatch } from './agent-job-store.js';
import type { AnalyticsDataset } from './analytics-dataset.js';
import type { FeedbackFilters } from './analytics-query.js';
import { analyticsTruth, type TruthByDataset } from './analytics-truth.js';
import { parseApiDate } from './api-date.js';
import type { AnalyticsWindow } from './compute-window.js';
import type { EmulatorContext } from './emulator-context.js';
import { resolveFaultRates } from './emulator-options.js';
import { visitorsWindow } from './datasets/visitors.js';
import type { Fault, FaultRates, RouteName } from './faults.js';

export interface EmulatorControl {
  /** Queues faults for the next authenticated requests of `route`, one fault per request, in order. */
  script(route: RouteName, faults: Fault[]): void;
  /** Scripted faults not consumed yet. */
  pendingFaults(route: RouteName): number;
  /** Drops every scripted fault not consumed yet. */
  clearScript(): void;
  /** Replaces the random fault rates (resolved like the `faults` option). */
  setFaults(rates: FaultRates): void;
  /** Replaces the latency added to every response. */
  setLatencyMs(latencyMs: number): void;
  /** Changes every window of the project (totals and order shift); returns its new data revision. */
  mutate(projectId: string): number;
  /** The whole visitors window the emulator serves now (its `pathsFor`, knobs and the project's revision applied). */
  window(projectId: string, dateFrom: string, dateTo: string): AnalyticsWindow;
  /** Ground truth of any analytics dataset as served now (see analytics-truth.ts for its shape). */
  truth<D extends AnalyticsDataset>(dataset: D, projectId: string, dateFrom: string, dateTo: string, filters?: FeedbackFilters): TruthByDataset[D];
  /** A job as the API would return it now, or undefined. */
  getJob(projectId: string, jobId: string): AgentJob | undefined;
  /** Changes (or creates) a job; `status: 'active'` starts a run, another status ends one. */
  setJob(projectId: string, jobId: string, patch: AgentJobPatch): AgentJob;
  /** Archives an existing job now. */
  archive(projectId: string, jobId: string): AgentJob;
}

export function createEmulatorControl(ctx: EmulatorContext): EmulatorControl {
  return {
    script: (route, faults) => ctx.script.add(route, faults),
    pendingFaults: (route) => ctx.script.pending(route),
    clearScript: () => ctx.script.clear(),
    setFaults: (rates) => {
      ctx.options.faults = resolveFaultRates(rates);
      ctx.randomFaults.setRates(ctx.options.faults);
    },
    setLatencyMs: (latencyMs) => {
      if (!Number.isFinite(latencyMs) || latencyMs < 0) throw new RangeError(`latencyMs must be ≥ 0, got ${latencyMs}`);
      ctx.options.latencyMs = latencyMs;
    },
    mutate: (projectId) => ctx.windows.mutate(projectId),
    window: (projectId, dateFrom, dateTo) => {
      const fromMs = parseApiDate(dateFrom);
      const toMs = parseApiDate(dateTo);
      if (fromMs === undefined || toMs === undefined || toMs <= fromMs) throw new RangeError(`invalid window ${dateFrom}..${dateTo}`);
      const window = visitorsWindow(ctx, ctx.windows.ref(projectId, dateFrom, dateTo, fromMs, toMs, ctx.options.now()));
      return { totals: { ...window.totals }, visitors: window.rows(0, window.size) };
    },
    truth: (dataset, projectId, dateFrom, dateTo, filters) =>
      analyticsTruth(ctx.options, dataset, projectId, dateFrom, dateTo, { revision: ctx.windows.revision(projectId), filters }),
    getJob: (projectId, jobId) => ctx.jobs.find(projectId, jobId),
    setJob: (projectId, jobId, patch) => ctx.jobs.patch(projectId, jobId, patch),
    archive: (projectId, jobId) => ctx.jobs.archive(projectId, jobId),
  };
}
