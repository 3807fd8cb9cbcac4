/**
 * `/api/*`: the JSON the dashboard page draws, read-only from the warehouse views (and queue counts
 * from Redis). Query parameters are checked here and refused with 400 naming the parameter.
 */
import type { FastifyInstance } from 'fastify';
import { addDays, dayInTimeZone, parseDay } from '../export/dates.js';
import { parseProjectId } from '../export/windows.js';
import { UsageError } from '../errors.js';
import { ALL_QUEUES } from '../queue/queues.js';
import { latestRuns } from '../warehouse/index.js';
import type { OpsSource } from './ops-source.js';
import { promptBatches } from './prompt-batch-reads.js';
import { dailyVisitors, exportedWindows, listProjects, topPages, windowTotals } from './visitor-reads.js';
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

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed'] as const;

export function registerDashboardApi(app: FastifyInstance, source: OpsSource): void {
  app.get('/api/projects', async () => {
    const wh = await source.warehouse();
    return { projects: await listProjects(wh) };
  });

  app.get<{ Querystring: Query }>('/api/daily', async (request) => {
    const projectId = project(request.query);
    const days = integerParam(request.query, 'days', 30, 1, 366);
    // Up to yesterday: today's window cannot be complete yet.
    const to = dayInTimeZone(new Date(), 'UTC');
    const from = addDays(to, -days);
    const wh = await source.warehouse();
    return { project: projectId, from, to, days: await dailyVisitors(wh, projectId, from, to) };
  });

  app.get<{ Querystring: Query }>('/api/windows', async (request) => {
    const projectId = project(request.query);
    const limit = integerParam(request.query, 'limit', 200, 1, 2000);
    const wh = await source.warehouse();
    return { project: projectId, windows: await exportedWindows(wh, projectId, limit) };
  });

  app.get<{ Querystring: Query }>('/api/top-pages', async (request) => {
    const projectId = project(request.query);
    const from = parseDay(request.query.from ?? '', 'from');
    const to = parseDay(request.query.to ?? '', 'to');
    if (to <= from) throw new UsageError(`to: must be after from (${from}); it is exclusive`);
    const limit = integerParam(request.query, 'limit', 25, 1, 1000);
    const wh = await source.warehouse();
    const [totals, pages] = await Promise.all([windowTotals(wh, projectId, from, to), topPages(wh, projectId, from, to, limit)]);
    return { project: projectId, from, to, totals, pages };
  });

  app.get<{ Querystring: Query }>('/api/export-runs', async (request) => {
    const projectId = request.query.project ? project(request.query) : undefined;
    const limit = integerParam(request.query, 'limit', 50, 1, 1000);
    const wh = await source.warehouse();
    return { runs: await latestRuns(wh, { projectId, limit }) };
  });

  app.get<{ Querystring: Query }>('/api/prompt-batches', async (request) => {
    const limit = integerParam(request.query, 'limit', 20, 1, 500);
    const wh = await source.warehouse();
    return { batches: await promptBatches(wh, { limit }) };
  });

  app.get('/api/queues', async () => {
    const reading = Promise.all(
      ALL_QUEUES.map(async (name) => {
        const queue = source.queue(name);
        const [counts, workers] = await Promise.all([queue.getJobCounts(...QUEUE_STATES), queue.getWorkersCount()]);
        return { name, workers, counts };
      }),
    );
    return { queues: await withTimeout(reading, 5000, 'redis') };
  });
}
