/**
 * What a range of export work costs in requests of the shared analytics budget, per dataset:
 * the fewest possible (one per window, or none for a fanout with nothing to fetch), an estimate
 * (the pages of the project's last complete run of the dataset, scaled by window length — pages,
 * not requests: retries of a bad hour are not the cost of the next run — or a stated guess where
 * the project has no run of it; every export uses the endpoint's largest `limit`), and the hours
 * the estimate takes at the configured budget. Pure: the caller looks up the last runs.
 */
import { getDataset, type DatasetName } from '../datasets/index.js';
import { daysBetween } from './dates.js';
import type { ExportWindow } from './windows.js';

/** A project's last complete run of a dataset: the pages it fetched over its window's days. */
export interface RunSample {
  pages: number;
  days: number;
}

/** The key of a sample in the map `planCost` takes: one per (project, dataset). */
export function runSampleKey(projectId: string, dataset: DatasetName): string {
  return `${projectId}\u0000${dataset}`;
}

export type EstimateBasis = 'last complete run' | 'guess' | 'last complete run and guess' | 'one call per window';

export interface DatasetCost {
  dataset: DatasetName;
  windows: number;
  /** Fewest requests the work can cost. */
  leastRequests: number;
  estimatedRequests: number;
  /**
   * Where the estimate comes from: the last complete run of each project, a guess (no project has
   * a run of the dataset), both (some have), or the dataset's one call per window.
   */
  basis: EstimateBasis;
  /** Hours of budget the estimate takes; null with the budget off. */
  hours: number | null;
}

export interface PlanCost {
  datasets: DatasetCost[];
  windows: number;
  leastRequests: number;
  estimatedRequests: number;
  hours: number | null;
  /** Requests per hour of the budget; null when off. */
  requestsPerHour: number | null;
}

export function planCost(
  windows: readonly ExportWindow[],
  /** By `runSampleKey(project, dataset)`. */
  samples: ReadonlyMap<string, RunSample>,
  rate: { limit: number; windowMs: number } | null,
): PlanCost {
  const requestsPerHour = rate ? (rate.limit * 3_600_000) / rate.windowMs : null;
  const hoursFor = (requests: number) => (requestsPerHour ? requests / requestsPerHour : null);
  const byDataset = new Map<DatasetName, ExportWindow[]>();
  for (const w of windows) byDataset.set(w.dataset, [...(byDataset.get(w.dataset) ?? []), w]);
  const datasets: DatasetCost[] = [];
  for (const [name, list] of byDataset) {
    const dataset = getDataset(name);
    const single = dataset.pagination.kind === 'single';
    const least = dataset.pagination.kind === 'fanout' ? 0 : list.length;
    let estimated = 0;
    let sampled = 0;
    for (const w of list) {
      const days = daysBetween(w.dateFrom, w.dateTo);
      const sample = samples.get(runSampleKey(w.projectId, name));
      const usable = sample !== undefined && sample.days > 0;
      if (usable) sampled += 1;
      if (single) estimated += 1;
      else if (usable) estimated += Math.max(least > 0 ? 1 : 0, Math.ceil((sample.pages * days) / sample.days));
      else estimated += Math.max(least > 0 ? 1 : 0, Math.ceil((dataset.requestsPerDayGuess ?? 1) * days));
    }
    const basis: EstimateBasis = single ? 'one call per window' : sampled === list.length ? 'last complete run' : sampled === 0 ? 'guess' : 'last complete run and guess';
    datasets.push({ dataset: name, windows: list.length, leastRequests: least, estimatedRequests: estimated, basis, hours: hoursFor(estimated) });
  }
  const leastRequests = datasets.reduce((sum, d) => sum + d.leastRequests, 0);
  const estimatedRequests = datasets.reduce((sum, d) => sum + d.estimatedRequests, 0);
  return { datasets, windows: windows.length, leastRequests, estimatedRequests, hours: hoursFor(estimatedRequests), requestsPerHour };
}

/** The plan as a table for people. */
export function formatPlanCost(cost: PlanCost): string {
  const hours = (h: number | null) => (h === null ? 'budget off' : `${h.toFixed(1)} h`);
  const rows = cost.datasets.map((d) => [d.dataset, String(d.windows), String(d.leastRequests), String(d.estimatedRequests), hours(d.hours), d.basis]);
  rows.push(['total', String(cost.windows), String(cost.leastRequests), String(cost.estimatedRequests), hours(cost.hours), '']);
  const header = ['dataset', 'windows', 'least requests', 'estimated requests', 'budget time', 'estimate from'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || i === 5 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  const budget = cost.requestsPerHour === null ? 'the analytics budget is off' : `at ${Number(cost.requestsPerHour.toFixed(2))} requests per hour (MINTPIPE_ANALYTICS_RATE), shared by every dataset and project`;
  const summary =
    cost.hours === null
      ? `${cost.estimatedRequests} requests (at least ${cost.leastRequests}); ${budget}, so nothing paces them`
      : `${cost.estimatedRequests} requests (at least ${cost.leastRequests}) take about ${hours(cost.hours)} ${budget}`;
  return [line(header), ...rows.map(line), '', summary].join('\n');
}
