/**
 * What `mintpipe status` reports, gathered from Redis (queues, schedules, the budget, the running
 * installation's published processes) and the warehouse (each dataset's freshness, failures and
 * findings). The warehouse is read like `query` reads it — directly when free, through the running
 * installation when it holds the embedded engine — and a warehouse that cannot be read becomes a
 * one-line note rather than a failed status.
 */
import { isDatasetName } from '../datasets/index.js';
import { checkRedisPersistence } from '../queue/redis-persistence.js';
import type { ExportRun } from '../warehouse/index.js';
import { projectDatasets } from '../export/nightly-plan.js';
import { ALL_QUEUES, QUEUE_NAMES, type QueueName } from '../queue/queue-names.js';
import { analyticsBudget } from '../queue/request-budget.js';
import { listSchedules } from '../queue/schedules.js';
import { datasetFreshness, type DatasetFreshness } from './dataset-freshness-reads.js';
import { budgetRate, readInstallation, type InstallationView } from './installation-reads.js';
import type { OpsSource } from './ops-source.js';
import { activeJobs, runJobs, type ActiveJob, type RunJob } from './job-holds.js';
import { exportRuns } from './run-reads.js';
import { openReader } from './warehouse-reader.js';
import { formatRate } from '../../config/index.js';

/** A dataset row of the report: freshness from the warehouse, and whether the nightly plan exports it. */
export interface DatasetStatus extends Omit<DatasetFreshness, 'projectId'> {
  /** null for an enabled dataset when no project is configured. */
  projectId: string | null;
  enabled: boolean;
}

export type DatasetsReport =
  | { readable: true; via: 'embedded' | 'server' | 'gateway'; rows: DatasetStatus[] }
  | { readable: false; note: string; rows: DatasetStatus[] };

export interface StatusReport {
  redis: string;
  /** Whether this Redis keeps what BullMQ writes (AOF and noeviction on every master), and what is missing. */
  redisDurability: { durable: boolean; problems: string[] };
  queuePrefix: string;
  installation: InstallationView;
  analyticsBudget: { rate: string; usedInWindow: number; pausedForMs: number };
  /** `stalled`: active jobs no worker holds any more (the process running them stopped). */
  queues: Array<{ name: QueueName; workers: number; counts: Record<string, number>; stalled: number }>;
  schedules: Array<{ id: string; pattern?: string | null; tz?: string | null; next: string | null }>;
  datasets: DatasetsReport;
  /**
   * The newest export runs as `export_runs` stores them (`status`: running, complete, failed, unstable,
   * abandoned); empty when the warehouse was not read. `job`, for a running run: whether a worker
   * holds its job, the job stalled (its worker stopped), or it is queued to run again; null otherwise.
   */
  lastRuns: Array<{ dataset: string; project: string; window: string; kind: string; status: string; rows: number; requests: number; finishedAt: string | null; error: string | null; job: RunJob | null }>;
}

export interface StatusSource extends OpsSource {
  /** Where Redis is, without credentials (describeRedisTarget). */
  readonly redisWhere: string;
}

/** Enabled datasets of each configured project that the warehouse has nothing of yet. */
function enabledWithoutRuns(found: DatasetFreshness[], installation: InstallationView): DatasetStatus[] {
  const { projects, datasets, assistantThreads } = installation.settings;
  const settings = { datasets: datasets.filter(isDatasetName), assistantThreads };
  const rows: DatasetStatus[] = [];
  const empty = { lastWindow: null, lagDays: null, failedWindows: 0, findings: {}, enabled: true };
  if (projects.length === 0) {
    for (const dataset of settings.datasets.filter((d) => d !== 'assistant-threads')) {
      if (!found.some((f) => f.dataset === dataset)) rows.push({ dataset, projectId: null, ...empty });
    }
    return rows;
  }
  for (const projectId of projects) {
    for (const dataset of projectDatasets(projectId, settings)) {
      if (!found.some((f) => f.dataset === dataset && f.projectId === projectId)) rows.push({ dataset, projectId, ...empty });
    }
  }
  return rows;
}

function isEnabled(row: DatasetFreshness, installation: InstallationView): boolean {
  const { projects, datasets, assistantThreads } = installation.settings;
  if (!projects.includes(row.projectId)) return false;
  return (projectDatasets(row.projectId, { datasets: datasets.filter(isDatasetName), assistantThreads }) as string[]).includes(row.dataset);
}

const LAST_RUNS = 10;

async function readWarehouse(source: StatusSource, installation: InstallationView, exportActive: readonly ActiveJob[]): Promise<{ datasets: DatasetsReport; lastRuns: StatusReport['lastRuns'] }> {
  let found: DatasetFreshness[];
  let runs: ExportRun[];
  let via: 'embedded' | 'server' | 'gateway';
  try {
    const reader = await openReader(source, source.config);
    via = reader.via;
    [found, runs] = await Promise.all([datasetFreshness(reader), exportRuns(reader, { limit: LAST_RUNS })]);
  } catch (err) {
    const line = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
    return { datasets: { readable: false, note: `warehouse not read: ${line}`, rows: enabledWithoutRuns([], installation) }, lastRuns: [] };
  }
  const rows: DatasetStatus[] = [...found.map((f) => ({ ...f, enabled: isEnabled(f, installation) })), ...enabledWithoutRuns(found, installation)];
  rows.sort((a, b) => a.dataset.localeCompare(b.dataset) || (a.projectId ?? '').localeCompare(b.projectId ?? ''));
  const running = runs.filter((r) => r.status === 'running').map((r) => r.runId);
  const jobs = await runJobs(source.queue(QUEUE_NAMES.export), exportActive, running);
  const lastRuns = runs.map((r) => ({
    dataset: r.dataset,
    project: r.projectId,
    window: `${r.dateFrom}..${r.dateTo}`,
    kind: r.kind,
    status: r.status,
    rows: r.rows,
    requests: r.requests,
    finishedAt: r.finishedAt ? r.finishedAt.toISOString() : null,
    error: r.error || null,
    job: jobs.get(r.runId) ?? null,
  }));
  return { datasets: { readable: true, via, rows }, lastRuns };
}

export async function gatherStatus(source: StatusSource): Promise<StatusReport> {
  const queues = [];
  const active = new Map<string, ActiveJob[]>();
  for (const name of ALL_QUEUES) {
    const queue = source.queue(name);
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed');
    active.set(name, await activeJobs(queue, source.redis));
    queues.push({ name, workers: await queue.getWorkersCount(), counts, stalled: active.get(name)!.filter((a) => !a.held).length });
  }
  const exportQueue = source.queue(QUEUE_NAMES.export);
  const schedules = await listSchedules(exportQueue);
  const installation = await readInstallation(source.redis, source.config.queuePrefix, source.config);
  // Counted over the running installation's budget window, never this shell's (see budgetRate).
  const rate = budgetRate(installation);
  const budget = await analyticsBudget(source.redis, source.config.queuePrefix, rate).usage();
  const persistence = await checkRedisPersistence(source.redis).catch((err: unknown) => ({
    durable: false,
    problems: [`could not read INFO: ${err instanceof Error ? err.message : String(err)}`],
  }));
  return {
    redis: source.redisWhere,
    redisDurability: { durable: persistence.durable, problems: [...persistence.problems] },
    queuePrefix: source.config.queuePrefix,
    installation,
    analyticsBudget: { rate: formatRate(rate), usedInWindow: budget.used, pausedForMs: budget.pausedForMs },
    queues,
    schedules: schedules.map((s) => ({ ...s, next: s.next ? new Date(s.next).toISOString() : null })),
    ...(await readWarehouse(source, installation, active.get(QUEUE_NAMES.export)!)),
  };
}
