/**
 * `/api/*`: the JSON the dashboard page draws, read-only from the warehouse views (and queue counts
 * from Redis). Query parameters are checked here and refused with 400 naming the parameter.
 */
import type { FastifyInstance } from 'fastify';
import { addDays, dayInTimeZone, parseDay } from '../export/dates.js';
import { parseProjectId } from '../export/windows.js';
import { UsageError } from '../errors.js';
import { ALL_QUEUES } from '../queue/queues.js';
import { activeJobs } from './job-holds.js';
import { isDatasetName } from '../datasets/index.js';
import { projectDatasets } from '../export/nightly-plan.js';
import { ASSISTANT_SPLIT, dailySplit, FEEDBACK_SPLIT } from './daily-split-reads.js';
import { datasetFreshness, type DatasetFreshness } from './dataset-freshness-reads.js';
import { checkRedisPersistence } from '../queue/redis-persistence.js';
import { readInstallation } from './installation-reads.js';
import type { OpsSource } from './ops-source.js';
import { notStartedBatches } from './batch-start-reads.js';
import { promptBatches } from './prompt-batch-reads.js';
import { triageFixes } from './fixes-reads.js';
import { exportRuns } from './run-reads.js';
import { dailyVisitors, exportedWindows, listProjects, topPages, windowTotals } from './visitor-reads.js';
import { openReader, type WarehouseReader } from './warehouse-reader.js';
import { withTimeout } from './with-timeout.js';

type Query = Record<string, string | undefined>;

function project(query: Query): string {
  if (!query.project) throw new UsageError('project: required (a project id)');
  return parseProjectId(query.project, 'project');
}

function integerParam(query: Query, name: string, fallback: number, min: number, max: number): number {
  const raw = query[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) throw new UsageError(`${name}: expected an integer from ${min} to ${max}, got "${raw}"`);
  return value;
}

/** The days before `today` of a `days` range: up to yesterday, since today's window cannot be complete yet. */
function dayRange(query: Query, today: string): { from: string; to: string } {
  const days = integerParam(query, 'days', 30, 1, 366);
  return { from: addDays(today, -days), to: today };
}

/** A dataset's freshness entry, or an empty one for an enabled dataset that has no run yet. */
export interface FreshnessRow extends DatasetFreshness {
  /** In the nightly plan of this project (by the running installation's settings). */
  enabled: boolean;
}

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed'] as const;

/** @param now the clock every answer's "today" is read from, once per request. @default the system clock */
export function registerDashboardApi(app: FastifyInstance, source: OpsSource, now: () => Date = () => new Date()): void {
  // The warehouse as this process can read it: its own, or through the process holding the engine.
  const reader = (): Promise<WarehouseReader> => openReader(source, source.config);
  const today = () => dayInTimeZone(now(), 'UTC');

  app.get('/api/projects', async () => {
    const wh = await reader();
    return { projects: await listProjects(wh) };
  });

  app.get<{ Querystring: Query }>('/api/daily', async (request) => {
    const projectId = project(request.query);
    const { from, to } = dayRange(request.query, today());
    const wh = await reader();
    const [days, freshness] = await Promise.all([dailyVisitors(wh, projectId, from, to), datasetFreshness(wh, { projectId, today: to })]);
    // The export lag as `status` counts it (dataset-freshness-reads.ts lagDays): one unit, one definition.
    const lagDays = freshness.find((f) => f.dataset === 'visitors')?.lagDays ?? null;
    return { project: projectId, from, to, days, lagDays };
  });

  app.get<{ Querystring: Query }>('/api/windows', async (request) => {
    const projectId = project(request.query);
    const limit = integerParam(request.query, 'limit', 200, 1, 2000);
    const wh = await reader();
    return { project: projectId, windows: await exportedWindows(wh, projectId, limit) };
  });

  app.get<{ Querystring: Query }>('/api/top-pages', async (request) => {
    const projectId = project(request.query);
    const from = parseDay(request.query.from ?? '', 'from');
    const to = parseDay(request.query.to ?? '', 'to');
    if (to <= from) throw new UsageError(`to: must be after from (${from}); it is exclusive`);
    const limit = integerParam(request.query, 'limit', 25, 1, 1000);
    const wh = await reader();
    const [totals, pages] = await Promise.all([windowTotals(wh, projectId, from, to), topPages(wh, projectId, from, to, limit)]);
    return { project: projectId, from, to, totals, pages };
  });

  app.get<{ Querystring: Query }>('/api/export-runs', async (request) => {
    const projectId = request.query.project ? project(request.query) : undefined;
    const limit = integerParam(request.query, 'limit', 50, 1, 1000);
    const dataset = request.query.dataset || undefined;
    if (dataset !== undefined && !isDatasetName(dataset)) throw new UsageError(`dataset: unknown dataset "${dataset.slice(0, 40)}"`);
    const wh = await reader();
    return { runs: await exportRuns(wh, { projectId, dataset, limit }) };
  });

  app.get<{ Querystring: Query }>('/api/prompt-batches', async (request) => {
    const limit = integerParam(request.query, 'limit', 20, 1, 500);
    const wh = await reader();
    const [batches, notStarted] = await Promise.all([promptBatches(wh, { limit }), notStartedBatches(source.redis, source.config.queuePrefix)]);
    return { batches, notStarted };
  });

  app.get<{ Querystring: Query }>('/api/fixes', async (request) => {
    const projectId = project(request.query);
    const effectDays = integerParam(request.query, 'effectDays', 14, 1, 90);
    const wh = await reader();
    return { project: projectId, effectDays, fixes: await triageFixes(wh, { projectId, effectDays, nowMs: now().getTime() }) };
  });

  app.get<{ Querystring: Query }>('/api/freshness', async (request) => {
    const projectId = project(request.query);
    const day = today();
    return { project: projectId, today: day, datasets: await freshnessRows(await reader(), source, projectId, day) };
  });

  app.get<{ Querystring: Query }>('/api/assistant-daily', async (request) => {
    const projectId = project(request.query);
    const { from, to } = dayRange(request.query, today());
    const wh = await reader();
    return { project: projectId, from, to, days: await dailySplit(wh, ASSISTANT_SPLIT, projectId, from, to) };
  });

  app.get<{ Querystring: Query }>('/api/feedback-daily', async (request) => {
    const projectId = project(request.query);
    const { from, to } = dayRange(request.query, today());
    const wh = await reader();
    return { project: projectId, from, to, days: await dailySplit(wh, FEEDBACK_SPLIT, projectId, from, to) };
  });

  app.get('/api/installation', async () => {
    const [view, persistence] = await withTimeout(
      Promise.all([readInstallation(source.redis, source.config.queuePrefix, source.config), checkRedisPersistence(source.redis)]),
      5000,
      'redis',
    );
    // Whether this Redis keeps what BullMQ writes: shown as a loud notice when it does not.
    return { ...view, redisDurability: { durable: persistence.durable, problems: persistence.problems } };
  });

  app.get('/api/queues', async () => {
    return { queues: await withTimeout(queueCounts(source), 5000, 'redis') };
  });
}

/** Each dataset's freshness, and an empty entry for each dataset the nightly plan exports that has no run yet. */
async function freshnessRows(wh: WarehouseReader, source: OpsSource, projectId: string, today: string): Promise<FreshnessRow[]> {
  const [found, installation] = await Promise.all([
    datasetFreshness(wh, { projectId, today }),
    withTimeout(readInstallation(source.redis, source.config.queuePrefix, source.config), 5000, 'redis'),
  ]);
  const { datasets, assistantThreads } = installation.settings;
  const enabled = new Set<string>(projectDatasets(projectId, { datasets: datasets.filter(isDatasetName), assistantThreads }));
  const rows: FreshnessRow[] = found.map((f) => ({ ...f, enabled: enabled.has(f.dataset) }));
  for (const dataset of enabled) {
    if (!found.some((f) => f.dataset === dataset)) rows.push({ dataset, projectId, lastWindow: null, lagDays: null, failedWindows: 0, findings: {}, enabled: true });
  }
  return rows;
}

/** Job counts by state, connected workers and stalled active jobs (no worker holds them) of every queue. */
function queueCounts(source: OpsSource) {
  return Promise.all(
    ALL_QUEUES.map(async (name) => {
      const queue = source.queue(name);
      const [counts, workers, active] = await Promise.all([queue.getJobCounts(...QUEUE_STATES), queue.getWorkersCount(), activeJobs(queue, source.redis)]);
      return { name, workers, counts, stalled: active.filter((a) => !a.held).length };
    }),
  );
}
