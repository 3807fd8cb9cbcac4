import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, dayInTimeZone } from '../../src/export/dates.js';
import { createLogger } from '../../src/logger.js';
import { startDashboard, type Dashboard } from '../../src/ops/dashboard-server.js';
import type { PromptBatchSummary } from '../../src/ops/prompt-batch-reads.js';
import type { DailyPoint, ExportedWindow, PageRow, VisitorCounts } from '../../src/ops/visitor-reads.js';
import { QUEUE_NAMES } from '../../src/queue/queues.js';
import type { ExportRun } from '../../src/warehouse/index.js';
import { openDashboardStack, seedDashboardData, type DashboardStack, type SeedResult } from '../support/dashboard-stack.js';

let stack: DashboardStack;
let seed: SeedResult;
let dashboard: Dashboard;

beforeAll(async () => {
  stack = await openDashboardStack();
  seed = await seedDashboardData(stack.warehouse);
  dashboard = await startDashboard({ runtime: stack.source, host: '127.0.0.1', port: 0, logger: createLogger({ level: 'silent', pretty: false }) });
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
  queues: Array<{ name: string; workers: number; counts: Record<string, number> }>;
  error: string;
}

async function get(path: string): Promise<{ status: number; body: Answers }> {
  const response = await fetch(`${dashboard.url}${path}`);
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
    const today = dayInTimeZone(new Date(), 'UTC');
    expect(body.days).toHaveLength(30);
    expect(body.days[0]?.date).toBe(addDays(today, -30));
    expect(body.days.at(-1)?.date).toBe(addDays(today, -1));
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
    const { body } = await get(`/api/export-runs?project=${seed.projectId}&limit=100`);
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
    expect(batch.byStatus).toEqual({ queued: 1, sending: 0, polling: 1, completed: 3, archived: 1, failed: 1, timed_out: 1, ambiguous: 1, rejected: 1 });
    expect(batch.prLinks.map((l) => l.prLink).sort()).toEqual([...seed.prLinks].sort());
    expect(batch.problems.map((p) => p.status).sort()).toEqual(['ambiguous', 'failed', 'rejected', 'timed_out']);
    expect(batch.problems.find((p) => p.status === 'rejected')?.error).toBe('job not found');
  });

  it('reports queue counts and connected workers', async () => {
    await stack.queue(QUEUE_NAMES.export).add('window', { projectId: 'x' });
    const { body } = await get('/api/queues');
    const exportQueue = body.queues.find((q) => q.name === 'export');
    expect(exportQueue?.counts.waiting).toBe(1);
    expect(exportQueue?.workers).toBe(0);
    expect(body.queues.map((q) => q.name)).toEqual(['export', 'prompts']);
  });

  it('refuses bad parameters with 400 naming the parameter', async () => {
    expect(await get('/api/daily')).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^project: required/) } });
    expect(await get(`/api/daily?project=${seed.projectId}&days=1000`)).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^days: /) } });
    expect(await get(`/api/top-pages?project=${seed.projectId}&from=2024-02-30&to=2024-03-02`)).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^from: /) } });
    expect(await get(`/api/top-pages?project=${seed.projectId}&from=2024-03-02&to=2024-03-01`)).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^to: /) } });
  });

  it('serves the page and its assets with a strict content security policy', async () => {
    const page = await fetch(`${dashboard.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    const html = await page.text();
    for (const asset of html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)) {
      expect((await fetch(`${dashboard.url}${asset[1]}`)).status).toBe(200);
    }
    expect((await fetch(`${dashboard.url}/assets/../../package.json`)).status).toBe(404);
    expect((await fetch(`${dashboard.url}/assets/secrets.txt`)).status).toBe(404);
  });

  it('mounts Bull Board for both queues under /queues', async () => {
    const ui = await fetch(`${dashboard.url}/queues`);
    expect(ui.status).toBe(200);
    const html = await ui.text();
    expect(html).toMatch(/<html/i);
    // Nothing is loaded from the internet (the machine may have none).
    expect(html).not.toMatch(/(?:href|src)="https?:/);
    const api = await fetch(`${dashboard.url}/queues/api/queues`);
    const body = (await api.json()) as { queues: Array<{ name: string }> };
    expect(body.queues.map((q) => q.name).sort()).toEqual(['export', 'prompts']);
  });
});
