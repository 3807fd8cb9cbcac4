import { randomBytes } from 'node:crypto';
import { Queue, Worker, type Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTriageNightProcessor } from '../../jobs/triage-night.js';
import { createLogger } from '../../src/logger.js';
import { batchStatus } from '../../src/prompts/index.js';
import { QUEUE_NAMES } from '../../src/queue/queue-names.js';
import type { TriageNightData } from '../../src/triage/nightly-triage.js';
import { loadRecipe } from '../../src/triage/load-recipes.js';
import { recipeSql } from '../../src/triage/recipe-sql.js';
import { openExportStack, type ExportStack } from '../support/export-stack.js';
import { projectWithData } from '../support/project-with-data.js';
import { expectedHotspots } from '../support/triage-truth.js';
import { until } from '../support/wait.js';

const SEED = 7;
const DAY_MS = 86_400_000;
/** The night's day windows: the last three whole days (the triage reads the clock: since 7 days ago). */
const dayWindows = [3, 2, 1].map((back) => {
  const from = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - back * DAY_MS);
  return [from.toISOString().slice(0, 10), new Date(from.getTime() + DAY_MS).toISOString().slice(0, 10)] as const;
});
/** More hotspot pages than the job may send, so the cap shows. */
const PROJECT = projectWithData(['night', 'night_b', 'night_c', 'night_d', 'night_e', 'night_f'], 'three feedback hotspot pages', (project) =>
  expectedHotspots({ seed: SEED }, project, dayWindows).size >= 3,
);
const days = dayWindows.map(([dateFrom, dateTo]) => ({ projectId: PROJECT, dateFrom, dateTo }));

let stack: ExportStack;
let queue: Queue;
let worker: Worker | undefined;

beforeAll(async () => {
  stack = await openExportStack({ emulator: { seed: SEED } });
  queue = new Queue(`triage-night-${randomBytes(4).toString('hex')}`, { connection: stack.runtime.redis });
});

afterAll(async () => {
  await worker?.close();
  await queue?.obliterate({ force: true });
  await queue?.close();
  await stack?.close();
});

describe('nightly triage', () => {
  it("waits, as a delayed job, until the night's windows of every dataset the recipe reads are complete, then sends at most MINTPIPE_TRIAGE_MAX_JOBS per project", async () => {
    const looks: string[] = [];
    const process = createTriageNightProcessor(
      {
        warehouse: stack.warehouse,
        redis: stack.runtime.redis,
        queue: stack.runtime.queue(QUEUE_NAMES.prompts),
        prefix: stack.config.queuePrefix,
        maxJobs: 2,
        recipesDir: undefined,
        secrets: [stack.config.api.key],
        logger: createLogger({ level: 'silent', pretty: false }),
      },
      { pollMs: 100 },
    );
    worker = new Worker(queue.name, async (job: Job<TriageNightData>, token?: string) => {
      looks.push(await job.getState());
      return process(job, token);
    }, { connection: stack.runtime.redis.duplicate() });
    const data: TriageNightData = {
      recipe: 'feedback-hotspots',
      night: days[2]!.dateTo,
      plannedAtMs: Date.now(),
      windows: days.flatMap((d) => (['feedback', 'views'] as const).map((dataset) => ({ dataset, ...d }))),
      projects: [PROJECT],
    };
    const job = await queue.add('triage-night', data, { jobId: 'triage-feedback-hotspots-night' });

    await until('three looks at the windows', async () => (looks.length >= 3 ? true : undefined), 20_000);
    expect(await job.getState()).not.toBe('completed');
    const feedback = await stack.exportWindows(days.map((d) => ({ ...d, dataset: 'feedback' as const })));
    expect(feedback.map((r) => r.state)).toEqual(["completed", "completed", "completed"]);
    const waited = looks.length;
    await until('three more looks', async () => (looks.length >= waited + 3 ? true : undefined), 20_000);
    expect(await queue.getJobState(job.id!)).not.toBe('completed');

    const views = await stack.exportWindows(days.map((d) => ({ ...d, dataset: 'views' as const })));
    expect(views.map((r) => r.state)).toEqual(["completed", "completed", "completed"]);
    await until('the triage job completed', async () => ((await queue.getJobState(job.id!)) === 'completed' ? true : undefined), 30_000);
    const result = (await queue.getJob(job.id!))!.returnvalue as { batchId: string; sent: number };
    const found = await stack.rows(recipeSql(loadRecipe('feedback-hotspots', undefined), { project: PROJECT, sinceDate: days[0]!.dateFrom }));
    expect(found.map((r) => r.subject).sort()).toEqual([...expectedHotspots({ seed: SEED }, PROJECT, dayWindows).keys()].sort());
    expect(found.length).toBeGreaterThan(2);
    expect(result.sent).toBe(2);
    const status = await batchStatus(stack.runtime.redis, stack.config.queuePrefix, result.batchId, { prompts: true });
    expect(status.total).toBe(2);
    expect(status.source).toBe(`triage feedback-hotspots (nightly ${data.night})`);
  });
});
