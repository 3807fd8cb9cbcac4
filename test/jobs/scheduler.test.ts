import { randomBytes } from 'node:crypto';
import { Queue, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createPlanNightlyProcessor, PLAN_NIGHTLY_JOB } from '../../jobs/plan-nightly.js';
import { DATASET_NAMES } from '../../src/datasets/index.js';
import type { ExportJobData } from '../../src/export/enqueue.js';
import { createLogger } from '../../src/logger.js';
import { listSchedules, nightlySchedule, upsertSchedule } from '../../src/queue/schedules.js';

const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
const queue = new Queue('export', { connection: redis, prefix: `t${randomBytes(4).toString('hex')}` });
afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
  redis.disconnect();
});

describe('nightly scheduler', () => {
  it('installs one nightly schedule per id, idempotently, with its cron and time zone', async () => {
    await upsertSchedule(queue, nightlySchedule('0 2 * * *', 'UTC'));
    await upsertSchedule(queue, nightlySchedule('30 3 * * *', 'Europe/Paris'));
    const schedules = await listSchedules(queue);
    expect(schedules).toHaveLength(1);
    expect(schedules[0]).toMatchObject({ id: 'nightly-export', pattern: '30 3 * * *', tz: 'Europe/Paris' });
    expect(schedules[0]!.next).toBeGreaterThan(Date.now());
  });

  it('enqueues yesterday and the re-export days for each project at the scheduled clock, nightly first', async () => {
    const plan = createPlanNightlyProcessor({
      queue,
      settings: { projects: ['docs', 'api'], datasets: ['visitors'], assistantThreads: [], reexportDays: { default: 2 }, weekly: false, monthly: false, timezone: 'UTC' },
      logger: createLogger({ level: 'silent' }),
    });
    const job = { data: { runAt: '2026-11-19T02:00:00Z' }, queueName: 'export', id: 'x', timestamp: Date.now(), opts: {} } as unknown as Job;
    await plan(job);
    const jobs = await queue.getJobs(['prioritized', 'waiting']);
    const windows = jobs
      .filter((j) => j.name !== PLAN_NIGHTLY_JOB)
      .map((j) => {
        const d = j.data as ExportJobData;
        return `${d.projectId} ${d.dateFrom}..${d.dateTo} ${d.kind} p${j.opts.priority}`;
      })
      .sort();
    expect(windows).toEqual([
      'api 2026-11-16..2026-11-17 reexport p100',
      'api 2026-11-17..2026-11-18 reexport p100',
      'api 2026-11-18..2026-11-19 nightly p1',
      'docs 2026-11-16..2026-11-17 reexport p100',
      'docs 2026-11-17..2026-11-18 reexport p100',
      'docs 2026-11-18..2026-11-19 nightly p1',
    ]);
    // Running the same night again while those windows are in flight adds nothing.
    await plan(job);
    expect((await queue.getJobs(['prioritized', 'waiting'])).length).toBe(jobs.length);
  });

  it('gives the datasets of MINTPIPE_DATASETS their configured order within each kind, even against the declared order', async () => {
    // The reverse of the declared order: a plan that fell back on the declared order would invert it.
    expect(DATASET_NAMES.indexOf('searches')).toBeGreaterThan(DATASET_NAMES.indexOf('visitors'));
    const plan = createPlanNightlyProcessor({
      queue,
      settings: { projects: ['ordered-docs'], datasets: ['searches', 'visitors'], assistantThreads: [], reexportDays: { default: 1 }, weekly: false, monthly: false, timezone: 'UTC' },
      logger: createLogger({ level: 'silent' }),
    });
    await plan({ data: { runAt: '2026-11-19T02:00:00Z' }, queueName: 'export', id: 'y', timestamp: Date.now(), opts: {} } as unknown as Job);
    const windows = (await queue.getJobs(['prioritized', 'waiting']))
      .filter((j) => j.name !== PLAN_NIGHTLY_JOB && (j.data as ExportJobData).projectId === 'ordered-docs')
      .sort((a, b) => a.opts.priority! - b.opts.priority!)
      .map((j) => `${(j.data as ExportJobData).dataset} ${(j.data as ExportJobData).kind}`);
    expect(windows).toEqual(['searches nightly', 'visitors nightly', 'searches reexport', 'visitors reexport']);
  });
});
