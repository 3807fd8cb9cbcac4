/**
 * The nightly plan hands its windows to the queue in the priority MINTPIPE_DATASETS gives: within
 * a kind, the configured order of datasets decides which window a worker takes first, not the
 * order the datasets are declared in.
 */
import { randomBytes } from 'node:crypto';
import { Queue, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createPlanNightlyProcessor, PLAN_NIGHTLY_JOB } from '../../jobs/plan-nightly.js';
import { DATASET_NAMES } from '../../src/datasets/index.js';
import type { ExportJobData } from '../../src/export/enqueue.js';
import { createLogger } from '../../src/logger.js';

const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
const queue = new Queue('export', { connection: redis, prefix: `t${randomBytes(4).toString('hex')}` });
afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
  redis.disconnect();
});

describe('the nightly plan', () => {
  it('gives the datasets of MINTPIPE_DATASETS their configured order within each kind, even against the declared order', async () => {
    // The reverse of the declared order: a plan that fell back on the declared order would invert it.
    const configured = ['searches', 'visitors'] as const;
    expect(DATASET_NAMES.indexOf('searches')).toBeGreaterThan(DATASET_NAMES.indexOf('visitors'));
    const plan = createPlanNightlyProcessor({
      queue,
      settings: { projects: ['docs'], datasets: [...configured], assistantThreads: [], reexportDays: { default: 1 }, weekly: false, monthly: false, timezone: 'UTC' },
      logger: createLogger({ level: 'silent' }),
    });
    await plan({ data: { runAt: '2026-11-19T02:00:00Z' }, queueName: 'export', id: 'x', timestamp: Date.now(), opts: {} } as unknown as Job);

    const jobs = (await queue.getJobs(['prioritized', 'waiting'])).filter((j) => j.name !== PLAN_NIGHTLY_JOB);
    const byPriority = jobs
      .map((j) => ({ priority: j.opts.priority!, window: `${(j.data as ExportJobData).dataset} ${(j.data as ExportJobData).kind}` }))
      .sort((a, b) => a.priority - b.priority)
      .map((j) => j.window);
    expect(byPriority).toEqual(['searches nightly', 'visitors nightly', 'searches reexport', 'visitors reexport']);
  });
});
