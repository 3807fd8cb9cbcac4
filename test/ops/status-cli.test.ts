/**
 * `mintpipe status` as a user runs it, in a second shell beside a running installation: each
 * dataset's last complete window, lag, failed windows and findings, read through the process that
 * holds the embedded warehouse; the settings of the running worker (published in Redis), not the
 * shell's; and, when nothing runs, a plain statement of that with the shell's own settings.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveWarehouseGateway } from '../../src/warehouse/warehouse-gateway.js';
import type { StatusReport } from '../../src/ops/status-report.js';
import { listInstallation } from '../../src/queue/installation-info.js';
import { createRedisConnection } from '../../src/queue/redis-connection.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/index.js';
import { lagSince, readOnOneDay, seedDashboardData, seedDatasetData, type DatasetSeed } from '../support/dashboard-stack.js';
import { engineEnv, engineName, itEmbeddedOnly } from '../support/engine.js';
import { runCli } from '../support/run-cli.js';
import { until } from '../support/wait.js';
import { seedWarehouse } from '../support/warehouse-template.js';
import { fileTempDir } from '../support/test-env.js';

let redis: Redis;

beforeAll(() => {
  redis = createRedisConnection(process.env.REDIS_URL!, 'status-cli-test');
});

afterAll(async () => {
  await redis.quit();
});

function baseEnv(dataDir: string, queuePrefix: string): Record<string, string> {
  return { MINTPIPE_DATA_DIR: dataDir, MINTPIPE_QUEUE_PREFIX: queuePrefix, REDIS_URL: process.env.REDIS_URL!, LOG_LEVEL: 'warn' };
}

/** `besideStarting`: a worker may still be starting up, which status waits for, saying so (warehouse-one-holder.test.ts). */
async function statusJson(env: Record<string, string>, besideStarting?: number): Promise<StatusReport> {
  const result = await runCli(['status', '--format', 'json'], env);
  const waited = `status: waiting up to 30s for the worker starting up on this data dir (pid ${besideStarting}) to serve the warehouse\n`;
  expect(besideStarting !== undefined && result.stderr === waited ? '' : result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as StatusReport;
}

describe('mintpipe status per dataset, beside a process that holds the warehouse', () => {
  const dataDir = seedWarehouse(fileTempDir('status'));
  const engine = engineEnv();
  const env = { ...baseEnv(dataDir, `mpstatus-${randomUUID().slice(0, 8)}`), MINTPIPE_PROJECTS: 'acme-docs', ...engine };
  /** On a server every process reads it itself; the embedded engine is read through its holder. */
  const via = engineName() === 'server' ? 'server' : 'gateway';
  let wh: Warehouse;
  let stopGateway: () => Promise<void>;
  let seed: DatasetSeed;

  beforeAll(async () => {
    // This test process plays the running installation: it holds the embedded engine and serves its gateway.
    wh = await openWarehouse({ database: engine.CLICKHOUSE_DATABASE ?? 'mintpipe', dataDir, url: engine.CLICKHOUSE_URL });
    await seedDashboardData(wh);
    seed = await seedDatasetData(wh);
    stopGateway = await serveWarehouseGateway(wh, dataDir);
  });

  afterAll(async () => {
    await stopGateway?.();
    await wh?.close();
  });

  it('gives each dataset its last complete window, lag, rows, failed windows and findings by kind', async () => {
    // Seeded fresh today: a lag of 0 days, or 1 once midnight passed since the seed.
    const { value: status, today } = await readOnOneDay(() => statusJson(env));
    const lagDays = lagSince(seed, today);
    expect(status.datasets).toMatchObject({ readable: true, via });
    const row = (dataset: string) => status.datasets.rows.find((r) => r.dataset === dataset && r.projectId === 'acme-docs');
    const yesterday = [...seed.assistant.keys()].at(-1)!;
    const conversations = seed.assistant.get(yesterday)!;
    expect(row('assistant')).toMatchObject({
      lastWindow: { dateFrom: yesterday, dateTo: seed.lastDateTo, rows: conversations.answered + conversations.unanswered },
      lagDays,
      failedWindows: 0,
      findings: { cursor_restarted: 1 },
      enabled: true,
    });
    expect(row('feedback')).toMatchObject({ lagDays, failedWindows: 1, findings: { invalid_text: 2 }, enabled: true });
    expect(row('visitors')).toMatchObject({ lagDays, failedWindows: 1, findings: {} });
    expect(row('feedback')?.findings).toEqual({ invalid_text: 2 });
    expect(row('assistant')?.findings).toEqual({ cursor_restarted: 1 });
    // Enabled for the configured project, never exported.
    expect(row('searches')).toMatchObject({ lastWindow: null, lagDays: null, enabled: true });
  });

  // The table is drawn from the report above whatever the engine: once, on the embedded engine.
  itEmbeddedOnly('prints a table of the datasets and a warning line for the findings', async () => {
    const { value: result, today } = await readOnOneDay(() => runCli(['status'], env));
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines).toContainEqual(expect.stringMatching(/^datasets \(warehouse read through the running installation\):$/));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^  feedback +acme-docs +${[...seed.feedback.keys()].at(-1)}\\.\\.${seed.lastDateTo} +${lagSince(seed, today)} d +\\d+ +1 +invalid_text 2$`)));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}searches +acme-docs +none yet +- +- +0 +-$/));
    const warning = lines.filter((l) => l.startsWith('warning: data-quality findings'));
    expect(warning).toHaveLength(1);
    expect(warning[0]).toMatch(/assistant of acme-docs \(cursor_restarted 1\).*feedback of acme-docs \(invalid_text 2\)/);
    expect(lines).toContainEqual(expect.stringMatching(/^warning: failed windows in .*feedback of acme-docs \(1\)/));
  });

  // Only the embedded engine has a holder that can go away.
  if (via === 'gateway') it('says in one line that the warehouse could not be read, and still reports the rest', async () => {
    await stopGateway();
    try {
      const result = await runCli(['status'], env);
      expect(result.code).toBe(0);
      const notes = result.stdout.split('\n').filter((l) => l.startsWith('datasets: warehouse not read'));
      expect(notes).toEqual([expect.stringMatching(/in use by another mintpipe process/)]);
      expect(result.stdout).toMatch(/^queue export /m);
    } finally {
      stopGateway = await serveWarehouseGateway(wh, dataDir);
    }
  });
});

// What status shows of the processes is the same on either engine: run once, on the embedded one.
if (engineName() === 'embedded') describe('mintpipe status shows what the running installation uses', () => {
  const dataDir = seedWarehouse(fileTempDir('status-worker'));
  const queuePrefix = `mpstatus-${randomUUID().slice(0, 8)}`;
  const shellEnv = { ...baseEnv(dataDir, queuePrefix), MINTPIPE_ANALYTICS_RATE: '100/1h', MINTPIPE_PROJECTS: 'shell-docs' };
  let worker: ChildProcess | undefined;
  let workerStderr = '';

  afterAll(async () => {
    if (worker && worker.exitCode === null) {
      worker.kill('SIGKILL');
      await new Promise((resolve) => worker!.once('exit', resolve));
    }
  });

  it('with nothing running, says so and shows the settings this shell would use', async () => {
    const result = await runCli(['status'], shellEnv);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^installation: nothing running .*the settings this shell would use:$/m);
    expect(result.stdout).toMatch(/^ {2}analytics budget 100\/1h /m);
    expect(result.stdout).toMatch(/projects shell-docs$/m);
    const status = await statusJson(shellEnv);
    expect(status.installation).toMatchObject({ running: false, processes: [], settingsFrom: 'local' });
  });

  it("shows a running worker's published budget and projects, not the shell's", async () => {
    worker = spawn(process.execPath, ['bin/mintpipe.js', 'worker', '--queues', 'export'], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ...baseEnv(dataDir, queuePrefix),
        MINTLIFY_API_KEY: 'mint_status_test_key',
        // Never called: the worker gets no window to export.
        MINTLIFY_API_URL: 'http://127.0.0.1:9',
        MINTPIPE_ANALYTICS_RATE: '7/1m',
        MINTPIPE_PROJECTS: 'worker-docs',
        MINTPIPE_DATASETS: 'visitors,feedback',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    worker.stderr!.on('data', (d: Buffer) => (workerStderr += d.toString()));
    await until(`the worker to publish itself (stderr: ${workerStderr})`, async () => ((await listInstallation(redis, queuePrefix)).length ? true : undefined), 90_000, 200);

    // The worker publishes itself before it has opened the warehouse and its gateway (a busy machine
    // shows the gap): status may say "not read" until it has claimed it, then waits for its gateway.
    const status = await until('status to read the warehouse through the worker', async () => {
      const report = await statusJson(shellEnv, worker!.pid);
      return report.datasets.readable ? report : undefined;
    }, 60_000, 250);
    expect(status.installation.running).toBe(true);
    expect(status.installation.processes).toEqual([expect.objectContaining({ role: 'worker', pid: worker.pid, queues: ['export'], scheduler: false })]);
    expect(status.installation.settings).toMatchObject({ analyticsRate: '7/1m', projects: ['worker-docs'], datasets: ['visitors', 'feedback'] });
    expect(status.analyticsBudget.rate).toBe('7/1m');
    // Datasets are those the worker's nightly plan exports, for its projects; the warehouse is read through the worker.
    expect(status.datasets).toMatchObject({ readable: true, via: 'gateway' });
    expect(status.datasets.rows.map((r) => `${r.dataset}/${r.projectId}`).sort()).toEqual(['feedback/worker-docs', 'visitors/worker-docs']);

    const text = await runCli(['status'], shellEnv);
    expect(text.stdout).toMatch(new RegExp(`^installation: 1 process running; the settings it uses:\\n {2}worker +pid ${worker.pid} on \\S+ +since \\S+ +v\\d+\\.\\d+\\.\\d+ +workers export$`, 'm'));
    expect(text.stdout).toMatch(/^ {2}analytics budget 7\/1m \(used 0\)/m);
    expect(text.stdout).not.toMatch(/100\/1h \(used|shell-docs/);
  });

  it('says nothing runs once the worker has stopped', async () => {
    worker!.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => worker!.once('exit', resolve));
    expect(code).toBe(0);
    const result = await runCli(['status'], shellEnv);
    expect(result.stdout).toMatch(/^installation: nothing running/m);
    expect(result.stdout).toMatch(/projects shell-docs$/m);
  });
});
