import { Worker, type Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, dayInTimeZone } from '../../src/export/dates.js';
import { createLogger } from '../../src/logger.js';
import { startDashboard, type Dashboard } from '../../src/ops/dashboard-server.js';
import type { NotStartedBatch } from '../../src/ops/batch-start-reads.js';
import type { PromptBatchSummary } from '../../src/ops/prompt-batch-reads.js';
import { PromptStore, submitBatch } from '../../src/prompts/index.js';
import type { DailyPoint, ExportedWindow, PageRow, VisitorCounts } from '../../src/ops/visitor-reads.js';
import { QUEUE_NAMES } from '../../src/queue/queues.js';
import type { ExportRun } from '../../src/warehouse/index.js';
import type { SplitPoint } from '../../src/ops/daily-split-reads.js';
import type { FreshnessRow } from '../../src/ops/dashboard-api.js';
import { openDashboardStack, seedDashboardData, seedDatasetData, type DashboardStack, type DatasetSeed, type SeedResult } from '../support/dashboard-stack.js';

/** The dashboard's clock, pinned: a run across midnight (UTC) still has one today. */
const NOW = new Date();
const TODAY = dayInTimeZone(NOW, 'UTC');
let stack: DashboardStack;
let seed: SeedResult;
let datasetSeed: DatasetSeed;
let dashboard: Dashboard;

beforeAll(async () => {
  // The dashboard's own settings: the nightly plan of acme-docs also fetches its assistant threads.
  stack = await openDashboardStack({ env: { MINTPIPE_ASSISTANT_THREADS: 'acme-docs' } });
  seed = await seedDashboardData(stack.warehouse, { today: TODAY });
  datasetSeed = await seedDatasetData(stack.warehouse, { projectId: seed.projectId, today: TODAY });
  dashboard = await startDashboard({ runtime: stack.source, host: '127.0.0.1', port: 0, now: () => NOW, logger: createLogger({ level: 'silent', pretty: false }) });
});

afterAll(async () => {
  await dashboard?.close();
  await stack?.close();
});

/** The JSON shapes of the answers (dates travel as strings). */
interface Answers {
  projects: string[];
  days: DailyPoint[];
  windows: ExportedWindow[];
  pages: PageRow[];
  totals: VisitorCounts | null;
  runs: Array<Omit<ExportRun, 'startedAt' | 'finishedAt'> & { startedAt: string; finishedAt: string | null }>;
  batches: PromptBatchSummary[];
  notStarted: NotStartedBatch[];
  queues: Array<{ name: string; workers: number; counts: Record<string, number>; stalled: number }>;
  datasets: FreshnessRow[];
  lagDays: number | null;
  today: string;
  error: string;
}

/** The JSON of the two daily split charts. */
interface SplitAnswer<K extends string> {
  from: string;
  to: string;
  days: Array<SplitPoint<K>>;
}

async function get(path: string): Promise<{ status: number; body: Answers }> {
  const response = await stack.fetch(`${dashboard.url}${path}`);
  return { status: response.status, body: (await response.json()) as Answers };
}

describe('dashboard JSON API', () => {
  it('lists the projects that have export runs', async () => {
    const { status, body } = await get('/api/projects');
    expect(status).toBe(200);
    expect(body.projects).toEqual([seed.projectId]);
  });

  it('gives one point per day of the last 30 days, with the 1-day totals and gaps where no day was exported', async () => {
    const { body } = await get(`/api/daily?project=${seed.projectId}&days=30`);
    expect(body.days).toHaveLength(30);
    expect(body.days[0]?.date).toBe(addDays(TODAY, -30));
    expect(body.days.at(-1)?.date).toBe(addDays(TODAY, -1));
    const withCounts = body.days.filter((d) => d.counts);
    expect(withCounts.map((d) => d.date)).toEqual(seed.days);
    const day = seed.days[3]!;
    expect(body.days.find((d) => d.date === day)?.counts).toEqual(seed.totals.get(day));
    for (const gap of seed.missing) expect(body.days.find((d) => d.date === gap)?.counts).toBeNull();
  });

  it('never turns the week window into a day of the chart', async () => {
    const { body } = await get(`/api/daily?project=${seed.projectId}&days=90`);
    expect(body.days).toHaveLength(90);
    expect(body.days.filter((d) => d.counts)).toHaveLength(seed.days.length);
  });

  it('lists exported windows newest first, the week among them', async () => {
    const { body } = await get(`/api/windows?project=${seed.projectId}`);
    expect(body.windows[0]).toMatchObject({ dateFrom: seed.week.dateFrom, dateTo: seed.week.dateTo, days: 7 });
    expect(body.windows.filter((w) => w.days === 1)).toHaveLength(seed.days.length);
  });

  it('ranks the pages of exactly the chosen window by total uniques', async () => {
    const { body } = await get(`/api/top-pages?project=${seed.projectId}&from=${seed.week.dateFrom}&to=${seed.week.dateTo}&limit=5`);
    expect(body.pages).toHaveLength(5);
    expect(body.pages[0]).toEqual(seed.week.top);
    const totals = body.pages.map((p) => p.total);
    expect([...totals].sort((a, b) => b - a)).toEqual(totals);
    expect(body.totals?.total).toBeGreaterThan(0);
  });

  it('shows export runs with status, rows and duration, the failed one with its error', async () => {
    const { body } = await get(`/api/export-runs?project=${seed.projectId}&dataset=visitors&limit=100`);
    const statuses = body.runs.map((r) => r.status);
    expect(statuses.filter((s) => s === 'complete')).toHaveLength(seed.days.length + 1);
    expect(statuses).toContain('running');
    const failed = body.runs.find((r) => r.status === 'failed');
    expect(failed).toMatchObject({ rows: 750, durationMs: 8000 });
    expect(failed?.error).toMatch(/total invariant/);
    const complete = body.runs.find((r) => r.status === 'complete');
    expect(complete?.rows).toBe(10);
    expect(complete?.durationMs).toBeGreaterThan(0);
  });

  it('summarises prompt batches by latest status, with PR links and the prompts to look at', async () => {
    const { body } = await get('/api/prompt-batches');
    expect(body.batches).toHaveLength(1);
    const batch = body.batches[0]!;
    expect(batch.batchId).toBe(seed.batchId);
    expect(batch.prompts).toBe(10);
    expect(batch.byStatus).toEqual({ queued: 1, sending: 0, polling: 1, completed: 3, archived: 1, failed: 1, timed_out: 1, ambiguous: 1, rejected: 1, skipped: 0, cancelled: 0 });
    expect(batch.prLinks.map((l) => l.prLink).sort()).toEqual([...seed.prLinks].sort());
    expect(batch.problems.map((p) => p.status).sort()).toEqual(['ambiguous', 'failed', 'rejected', 'timed_out']);
    expect(batch.problems.find((p) => p.status === 'rejected')?.error).toBe('job not found');
  });

  it('lists the batches that did not start, with why, beside the warehouse\'s summaries (which may have nothing of them)', async () => {
    const deps = { redis: stack.redis, queue: stack.source.queue(QUEUE_NAMES.prompts), prefix: stack.source.config.queuePrefix };
    const started = await submitBatch(deps, [{ projectId: 'acme-docs', jobId: 'job-1', prompt: 'started' }]);
    const stuck = await submitBatch(deps, [{ projectId: 'acme-docs', jobId: 'job-2', prompt: 'never started' }, { projectId: 'acme-docs', jobId: 'job-3', prompt: 'nor this' }]);
    const store = new PromptStore(stack.redis, stack.source.config.queuePrefix);
    expect(await store.recordStartFailure(stuck.batchId, { reason: 'its job crashed 8 times (attempts spent)', atMs: Date.parse('2026-11-20T10:00:00Z') })).toBe(true);
    const { body } = await get('/api/prompt-batches');
    expect(body.notStarted).toEqual([{ batchId: stuck.batchId, prompts: 2, reason: 'its job crashed 8 times (attempts spent)', at: '2026-11-20T10:00:00.000Z' }]);
    expect(body.notStarted.map((b) => b.batchId)).not.toContain(started.batchId);
  });

  it('gives the daily view the export lag status gives the visitors dataset: whole days, one definition', async () => {
    const [daily, freshness] = await Promise.all([get(`/api/daily?project=${seed.projectId}&days=7`), get(`/api/freshness?project=${seed.projectId}`)]);
    expect(daily.status).toBe(200);
    expect(daily.body.lagDays).toBe(0);
    expect(daily.body.lagDays).toBe(freshness.body.datasets.find((d) => d.dataset === 'visitors')?.lagDays);
  });

  it('shows each dataset of the project with its last complete window, lag, rows, failed windows and findings', async () => {
    const { status, body } = await get(`/api/freshness?project=${seed.projectId}`);
    expect(status).toBe(200);
    expect(body.today).toBe(TODAY);
    const byName = new Map(body.datasets.map((d) => [d.dataset, d]));
    const yesterday = addDays(body.today, -1);
    // Visitors: the week window and yesterday's day window both end today; the last one is a complete window ending today.
    expect(byName.get('visitors')).toMatchObject({ lagDays: 0, failedWindows: 1, findings: {}, enabled: true, lastWindow: { dateTo: body.today } });
    const assistant = datasetSeed.assistant.get(yesterday)!;
    expect(byName.get('assistant')).toMatchObject({
      lastWindow: { dateFrom: yesterday, dateTo: body.today, rows: assistant.answered + assistant.unanswered },
      lagDays: 0,
      failedWindows: 0,
      findings: datasetSeed.findings.assistant,
      enabled: true,
    });
    const feedback = datasetSeed.feedback.get(yesterday)!;
    expect(byName.get('feedback')).toMatchObject({
      lastWindow: { dateFrom: yesterday, rows: feedback.helpful + feedback.notHelpful + feedback.unrated },
      failedWindows: datasetSeed.failedFeedbackWindows,
      findings: datasetSeed.findings.feedback,
    });
    // Exactly the findings of the runs readers see (a superseded run's findings are not counted).
    expect(byName.get('feedback')?.findings).toEqual(datasetSeed.findings.feedback);
    expect(byName.get('assistant')?.findings).toEqual(datasetSeed.findings.assistant);
    expect(byName.get('visitors')?.findings).toEqual({});
    // Enabled by the settings but never exported: listed, with nothing complete.
    expect(byName.get('searches')).toMatchObject({ lastWindow: null, lagDays: null, enabled: true });
    expect(byName.get('assistant-threads')).toMatchObject({ lastWindow: null, enabled: true });
  });

  it('counts the lag in days from the last window end to today', async () => {
    const { body } = await get(`/api/freshness?project=${seed.projectId}`);
    // The stale project of the same warehouse: only a window that ended 5 days ago.
    const stale = 'stale-docs';
    const { exportDatasetRun } = await import('../support/dashboard-stack.js');
    await exportDatasetRun(stack.warehouse, { dataset: 'feedback-by-page', projectId: stale, dateFrom: addDays(body.today, -6), dateTo: addDays(body.today, -5), rows: [] });
    const staleAnswer = await get(`/api/freshness?project=${stale}`);
    expect(staleAnswer.body.datasets.find((d) => d.dataset === 'feedback-by-page')).toMatchObject({ lagDays: 5, lastWindow: { rows: 0 } });
  });

  it('gives assistant conversations per day split answered and unanswered, with gaps and empty days', async () => {
    const { status, body } = await get(`/api/assistant-daily?project=${seed.projectId}&days=30`);
    expect(status).toBe(200);
    const answer = body as unknown as SplitAnswer<'answered' | 'unanswered'>;
    expect(answer.days).toHaveLength(30);
    const withCounts = answer.days.filter((d) => d.counts);
    expect(withCounts.map((d) => d.date)).toEqual([...datasetSeed.assistant.keys()]);
    for (const d of withCounts) expect(d.counts).toEqual(datasetSeed.assistant.get(d.date));
    expect(answer.days.find((d) => d.date === datasetSeed.gap)?.counts).toBeNull();
    // A complete window with no conversations is a zero, not a gap.
    expect(withCounts.some((d) => d.counts?.answered === 0 && d.counts.unanswered === 0)).toBe(true);
  });

  it('gives feedback per day split helpful and not helpful, unrated apart', async () => {
    const answer = (await get(`/api/feedback-daily?project=${seed.projectId}&days=30`)).body as unknown as SplitAnswer<'helpful' | 'notHelpful' | 'unrated'>;
    const withCounts = answer.days.filter((d) => d.counts);
    expect(withCounts.map((d) => d.date)).toEqual([...datasetSeed.feedback.keys()]);
    for (const d of withCounts) expect(d.counts).toEqual(datasetSeed.feedback.get(d.date));
    expect(answer.days.find((d) => d.date === datasetSeed.gap)?.counts).toBeNull();
  });

  it('reports queue counts and connected workers', async () => {
    await stack.queue(QUEUE_NAMES.export).add('window', { projectId: 'x' });
    const { body } = await get('/api/queues');
    const exportQueue = body.queues.find((q) => q.name === 'export');
    expect(exportQueue?.counts.waiting).toBe(1);
    expect(exportQueue?.workers).toBe(0);
    expect(exportQueue?.stalled).toBe(0);
    expect(body.queues.map((q) => q.name)).toEqual(['export', 'prompts']);
  });

  it('counts the active jobs no worker holds any more as stalled, and not those a worker holds', async () => {
    const queue = stack.queue(QUEUE_NAMES.prompts);
    await queue.addBulk([{ name: 'held', data: {} }, { name: 'left', data: {} }]);
    // Takes both jobs as a worker would, then loses one's lock as a worker that stopped does.
    const worker = new Worker(QUEUE_NAMES.prompts, null, { connection: stack.source.redis, prefix: queue.opts.prefix, lockDuration: 60_000, autorun: false });
    try {
      // Earlier cases queued batch jobs here too: take jobs until both are active (every one taken is held).
      const taken: Job[] = [];
      while (!['held', 'left'].every((name) => taken.some((job) => job.name === name))) taken.push((await worker.getNextJob(`token-${taken.length}`))!);
      const left = taken.find((job) => job.name === 'left')!;
      await stack.source.redis.del(`${queue.toKey(left.id!)}:lock`);
      const { body } = await get('/api/queues');
      expect(body.queues.find((q) => q.name === 'prompts')).toMatchObject({ counts: { active: taken.length }, stalled: 1 });
    } finally {
      await worker.close(true);
      await queue.obliterate({ force: true });
    }
  });

  it('refuses bad parameters with 400 naming the parameter', async () => {
    expect(await get('/api/daily')).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^project: required/) } });
    expect(await get(`/api/daily?project=${seed.projectId}&days=1000`)).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^days: /) } });
    expect(await get(`/api/top-pages?project=${seed.projectId}&from=2024-02-30&to=2024-03-02`)).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^from: /) } });
    expect(await get(`/api/top-pages?project=${seed.projectId}&from=2024-03-02&to=2024-03-01`)).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^to: /) } });
    expect(await get('/api/freshness')).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^project: required/) } });
    expect(await get(`/api/assistant-daily?project=${seed.projectId}&days=0`)).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^days: /) } });
    expect(await get(`/api/feedback-daily?project=%20`)).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^project: /) } });
    expect(await get(`/api/export-runs?dataset=nope`)).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^dataset: /) } });
  });

  it('serves the page and its assets with a strict content security policy', async () => {
    const page = await stack.fetch(`${dashboard.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    const html = await page.text();
    for (const asset of html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)) {
      expect((await stack.fetch(`${dashboard.url}${asset[1]}`)).status).toBe(200);
    }
    expect((await stack.fetch(`${dashboard.url}/assets/../../package.json`)).status).toBe(404);
    expect((await stack.fetch(`${dashboard.url}/assets/secrets.txt`)).status).toBe(404);
  });

  it('mounts Bull Board for both queues under /queues', async () => {
    const ui = await stack.fetch(`${dashboard.url}/queues`);
    expect(ui.status).toBe(200);
    const html = await ui.text();
    expect(html).toMatch(/<html/i);
    // Nothing is loaded from the internet (the machine may have none).
    expect(html).not.toMatch(/(?:href|src)="https?:/);
    const api = await stack.fetch(`${dashboard.url}/queues/api/queues`);
    const body = (await api.json()) as { queues: Array<{ name: string }> };
    expect(body.queues.map((q) => q.name).sort()).toEqual(['export', 'prompts']);
  });
});
