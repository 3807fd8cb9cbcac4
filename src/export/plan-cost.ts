/**
 * What a range of export work costs in requests of the shared analytics budget, per dataset:
 * the fewest possible (one per window, or none for a fanout with nothing to fetch), an estimate
 * (the dataset's last complete run scaled by window length, or a stated guess where there is
 * none; every export uses the endpoint's largest `limit`), and the hours the estimate takes at the
 * configured budget. Pure: the caller looks up the last runs.
 */
import { getDataset, type DatasetName } from '../datasets/index.js';
import { daysBetween } from './dates.js';
import type { ExportWindow } from './windows.js';

/** A dataset's last complete run: its requests over its window's days. */
export interface RunSample {
  requests: number;
  days: number;
}

export interface DatasetCost {
  dataset: DatasetName;
  windows: number;
  /** Fewest requests the work can cost. */
  leastRequests: number;
  estimatedRequests: number;
  /** Where the estimate comes from. */
  basis: 'last complete run' | 'default guess' | 'one call per window';
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
  samples: ReadonlyMap<DatasetName, RunSample>,
  rate: { limit: number; windowMs: number } | null,
): PlanCost {
  const requestsPerHour = rate ? (rate.limit * 3_600_000) / rate.windowMs : null;
  const hoursFor = (requests: number) => (requestsPerHour ? requests / requestsPerHour : null);
  const byDataset = new Map<DatasetName, ExportWindow[]>();
  for (const w of windows) byDataset.set(w.dataset, [...(byDataset.get(w.dataset) ?? []), w]);
  const datasets: DatasetCost[] = [];
  for (const [name, list] of byDataset) {
    const dataset = getDataset(name);
    const sample = samples.get(name);
    const single = dataset.pagination.kind === 'single';
    const least = dataset.pagination.kind === 'fanout' ? 0 : list.length;
    let estimated = 0;
    for (const w of list) {
      const days = daysBetween(w.dateFrom, w.dateTo);
      if (single) estimated += 1;
      else if (sample && sample.days > 0) estimated += Math.max(least > 0 ? 1 : 0, Math.ceil((sample.requests * days) / sample.days));
      else estimated += Math.max(least > 0 ? 1 : 0, Math.ceil((dataset.requestsPerDayGuess ?? 1) * days));
    }
    const basis = single ? 'one call per window' : sample ? 'last complete run' : 'default guess';
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
