/**
 * `mintpipe dashboard` beside a running worker of the same data dir, as two processes: the worker
 * holds the embedded warehouse, and the dashboard reads it through the worker's read-only gateway
 * (as `query` does) instead of answering with a lock error — every panel, /healthz and /metrics.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/export/dates.js';
import type { SplitPoint } from '../../src/ops/daily-split-reads.js';
import type { FreshnessRow } from '../../src/ops/dashboard-api.js';
import type { InstallationView } from '../../src/ops/installation-reads.js';
import { openWarehouse } from '../../src/warehouse/index.js';
import { dashboardTokenHolder } from '../support/test-stack.js';
import { lagSince, readOnOneDay, seedDashboardData, seedDatasetData, type DatasetSeed, type SeedResult } from '../support/dashboard-stack.js';
import { seedWarehouse } from '../support/warehouse-template.js';
import { fileTempDir } from '../support/test-env.js';

const dataDir = seedWarehouse(fileTempDir('dashboard-gateway'));
const tokenHolder = dashboardTokenHolder(dataDir);
const env = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  REDIS_URL: process.env.REDIS_URL!,
  MINTPIPE_DATA_DIR: dataDir,
  MINTPIPE_QUEUE_PREFIX: `mpgw-${randomUUID().slice(0, 8)}`,
  LOG_LEVEL: 'warn',
};
const children: ChildProcess[] = [];
let seed: SeedResult;
let datasets: DatasetSeed;
let url: string;
let dashboardStderr = '';

/** Starts `mintpipe <args>` and resolves with the first match of `ready` in its output. */
function startChild(args: string[], extra: Record<string, string>, ready: RegExp, onStderr: (text: string) => void): Promise<RegExpExecArray> {
  const child = spawn(process.execPath, ['bin/mintpipe.js', ...args], { env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mintpipe ${args.join(' ')} did not get ready; output: ${output}`)), 90_000);
    const look = (d: Buffer) => {
      output += d.toString();
      const match = ready.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', (d: Buffer) => {
      onStderr(d.toString());
      look(d);
    });
    child.on('exit', (code) => reject(new Error(`mintpipe ${args.join(' ')} exited ${code}; output: ${output}`)));
  });
}

beforeAll(async () => {
  const wh = await openWarehouse({ database: 'mintpipe', dataDir });
  seed = await seedDashboardData(wh);
  datasets = await seedDatasetData(wh, { projectId: seed.projectId });
  await wh.close();
  await startChild(
    ['worker', '--queues', 'export'],
    // The API is never called: the worker gets no window to export.
    { MINTLIFY_API_KEY: 'mint_gateway_test_key', MINTLIFY_API_URL: 'http://127.0.0.1:9', MINTPIPE_ANALYTICS_RATE: '11/1m', MINTPIPE_PROJECTS: seed.projectId },
    /mintpipe worker: export/,
    () => undefined,
  );
  const match = await startChild(['dashboard', '--port', '0'], {}, /dashboard: (http:\/\/127\.0\.0\.1:\d+)/, (text) => (dashboardStderr += text));
  url = match[1]!;
});

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode !== null) continue;
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
});

async function get<T>(path: string): Promise<{ status: number; body: T }> {
  const response = await tokenHolder.fetch(`${url}${path}`);
  return { status: response.status, body: (await response.json()) as T };
}

describe('the dashboard beside a worker that holds the embedded warehouse', () => {
  it('is healthy: the warehouse answers through the worker', async () => {
    expect(await get('/healthz')).toEqual({ status: 200, body: { redis: 'ok', warehouse: 'ok' } });
  });

  it('reads the visitors panels through the worker', async () => {
    const projects = await get<{ projects: string[] }>('/api/projects');
    expect(projects).toEqual({ status: 200, body: { projects: [seed.projectId] } });
    const daily = await get<{ days: Array<{ date: string; counts: unknown }> }>(`/api/daily?project=${seed.projectId}&days=30`);
    expect(daily.status).toBe(200);
    expect(daily.body.days.filter((d) => d.counts).map((d) => d.date)).toEqual(seed.days);
    const day = seed.days[2]!;
    expect(daily.body.days.find((d) => d.date === day)?.counts).toEqual(seed.totals.get(day));
    const runs = await get<{ runs: Array<{ status: string; startedAt: string }> }>(`/api/export-runs?project=${seed.projectId}&dataset=visitors&limit=100`);
    expect(runs.body.runs.filter((r) => r.status === 'complete')).toHaveLength(seed.days.length + 1);
    expect(Number.isNaN(Date.parse(runs.body.runs[0]!.startedAt))).toBe(false);
    const batches = await get<{ batches: Array<{ prLinks: unknown[] }> }>('/api/prompt-batches');
    expect(batches.body.batches[0]?.prLinks).toHaveLength(seed.prLinks.length);
  });

  it('reads the freshness table and both charts through the worker', async () => {
    // Seeded fresh today: a lag of 0 days, or 1 once midnight passed since the seed.
    const { value: freshness, today } = await readOnOneDay(() => get<{ datasets: FreshnessRow[] }>(`/api/freshness?project=${seed.projectId}`));
    expect(freshness.status).toBe(200);
    expect(freshness.body.datasets.find((d) => d.dataset === 'feedback')).toMatchObject({ lagDays: lagSince(datasets, today), failedWindows: 1, findings: { invalid_text: 2 } });
    const assistant = await get<{ days: Array<SplitPoint<'answered' | 'unanswered'>> }>(`/api/assistant-daily?project=${seed.projectId}&days=30`);
    expect(assistant.body.days.filter((d) => d.counts).map((d) => [d.date, d.counts])).toEqual([...datasets.assistant].map(([date, counts]) => [date, counts]));
    const feedback = await get<{ days: Array<SplitPoint<'helpful' | 'notHelpful' | 'unrated'>> }>(`/api/feedback-daily?project=${seed.projectId}&days=30`);
    // The seed's yesterday: inside the 30 days whether or not midnight passed since.
    const yesterday = addDays(datasets.lastDateTo, -1);
    expect(datasets.feedback.get(yesterday)).toBeDefined();
    expect(feedback.body.days.find((d) => d.date === yesterday)?.counts).toEqual(datasets.feedback.get(yesterday));
  });

  it("shows the worker's settings, and exports its gauges read through it", async () => {
    const installation = await get<InstallationView>('/api/installation');
    expect(installation.body).toMatchObject({ running: true, settings: { analyticsRate: '11/1m', projects: [seed.projectId] } });
    // The test Redis keeps what BullMQ writes (AOF, noeviction), read from INFO: no warning to show.
    expect((installation.body as unknown as { redisDurability: unknown }).redisDurability).toEqual({ durable: true, problems: [] });
    const metrics = await (await tokenHolder.fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/^mintpipe_scrape_source_up\{source="warehouse"\} 1$/m);
    // Nothing waited for the engine's lock or failed to read it.
    expect(dashboardStderr).not.toMatch(/warehouse_waiting|in use by another/);
  });
});
