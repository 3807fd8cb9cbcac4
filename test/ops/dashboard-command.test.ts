import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testEnv } from '../support/export-stack.js';
import { runCli, startCli } from '../support/run-cli.js';
import { dashboardTokenHolder } from '../support/test-stack.js';
import { fileTempDir } from '../support/test-env.js';
import { until } from '../support/wait.js';
import { seedWarehouse } from '../support/warehouse-template.js';

const children: Array<ReturnType<typeof spawn>> = [];
const dataDir = seedWarehouse(fileTempDir('dashboard-cmd'));
const env = (extra: Record<string, string> = {}) => testEnv({ MINTPIPE_DATA_DIR: dataDir, ...extra });
const tokenHolder = dashboardTokenHolder(dataDir);

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Status of GET /api/queues at `url` with a browser's Host header for `host` (and the token). */
function statusWithHost(url: string, host: string, token?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/queues`, { headers: { host, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('mintpipe dashboard', () => {
  it('refuses to bind 0.0.0.0 without MINTPIPE_DASHBOARD_TOKEN: exit 2, one line naming the flag or setting that asked for it, and the token', async () => {
    const byFlag = await runCli(['dashboard', '--host', '0.0.0.0', '--port', '0'], env());
    expect(byFlag.code).toBe(2);
    expect(byFlag.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^mintpipe: --host: .*MINTPIPE_DASHBOARD_TOKEN/)]);
    const bySetting = await runCli(['dashboard', '--port', '0'], env({ MINTPIPE_DASHBOARD_HOST: '0.0.0.0' }));
    expect(bySetting.code).toBe(2);
    expect(bySetting.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^mintpipe: MINTPIPE_DASHBOARD_HOST: .*MINTPIPE_DASHBOARD_TOKEN/)]);
  });

  it('refuses a dashboard token under 16 characters: exit 2, one line naming the key, the token nowhere', async () => {
    const result = await runCli(['dashboard', '--port', '0'], env({ MINTPIPE_DASHBOARD_TOKEN: 'Qz7#short' }));
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^mintpipe: MINTPIPE_DASHBOARD_TOKEN: expected at least 16 characters/);
    expect(`${result.stdout}${result.stderr}`).not.toContain('Qz7#short');
  });

  it('stops in one line, exit 1, when a directory sits where its token file goes', async () => {
    const ownDir = fileTempDir('dashboard-token-dir');
    mkdirSync(join(ownDir, 'dashboard-token'));
    const result = await runCli(['dashboard', '--port', '0'], testEnv({ MINTPIPE_DATA_DIR: ownDir, LOG_LEVEL: 'warn' }));
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([`mintpipe: ${join(ownDir, 'dashboard-token')}: not a file (mintpipe keeps the dashboard token there): remove it`]);
  });

  it('refuses a nightly cron with a seconds field: exit 2, one line naming the key', async () => {
    const result = await runCli(['dashboard', '--port', '0'], env({ MINTPIPE_SCHEDULE_CRON: '*/10 * * * * *' }));
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^mintpipe: MINTPIPE_SCHEDULE_CRON: a seconds field is not allowed/)]);
  });

  it('refuses a port that is not a number with exit 2', async () => {
    const result = await runCli(['dashboard', '--port', 'eighty'], env());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--port: expected a port/);
  });

  it('serves until SIGTERM, then closes cleanly with exit 0', async () => {
    const child = spawn(process.execPath, ['bin/mintpipe.js', 'dashboard', '--port', '0'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env({ MINTPIPE_SHUTDOWN_GRACE: '5s', MINTPIPE_DASHBOARD_HOSTS: 'dash.internal' }) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no dashboard URL; stderr: ${stderr}`)), 30_000);
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        const match = /dashboard: (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
    });
    // MINTPIPE_DASHBOARD_HOSTS reaches the server; any other name is refused.
    expect(await statusWithHost(url, 'dash.internal', tokenHolder.token())).toBe(200);
    expect(await statusWithHost(url, 'rebound.example')).toBe(421);
    // Each probe is bounded (3 s): on a loaded machine the first may miss it, so the test waits for health to come.
    const health = await until('/healthz to answer 200', async () => {
      const res = await fetch(`${url}/healthz`);
      return res.status === 200 ? res : undefined;
    }, 30_000, 250);
    expect(await health.json()).toEqual({ redis: 'ok', warehouse: 'ok' });
    expect((await tokenHolder.fetch(`${url}/`)).status).toBe(200);

    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).toBe(0);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it('prints its address with the generated token, which opens it; the token is in no log, not in status, and no other user can read its file', async () => {
    // A data dir of its own, under a parent another user may pass through: only its own mode keeps them out.
    const parent = fileTempDir('dashboard-token');
    chmodSync(parent, 0o711);
    const ownDir = join(parent, 'data');
    const ownEnv = testEnv({ MINTPIPE_DATA_DIR: ownDir, LOG_LEVEL: 'debug', MINTPIPE_SHUTDOWN_GRACE: '5s' });
    const running = await startCli(['dashboard', '--port', '0'], ownEnv, (printed) => printed.stdout.includes('dashboard: '));
    try {
      const file = join(ownDir, 'dashboard-token');
      const token = readFileSync(file, 'utf8').trim();
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const printed = /^dashboard: (http:\/\/127\.0\.0\.1:\d+)\/\?token=([0-9a-f]{48}) {3}queues: \S+\/queues {3}metrics: \S+\/metrics \(token in (\S+)\)$/m.exec(running.output().stdout);
      expect(printed?.slice(2)).toEqual([token, file]);
      const url = printed![1]!;
      // The printed address, as a browser follows it: a cookie, then the page and its data.
      const first = await fetch(`${url}/?token=${token}`, { redirect: 'manual' });
      expect([first.status, first.headers.get('location')]).toEqual([302, '/']);
      const session = { cookie: (first.headers.get('set-cookie') ?? '').split(';')[0]! };
      expect((await fetch(`${url}/api/queues`, { headers: session })).status).toBe(200);
      expect((await fetch(`${url}/api/queues`)).status).toBe(401);

      const status = await runCli(['status'], { ...ownEnv, LOG_LEVEL: 'debug' });
      expect(status.code, status.stderr).toBe(0);
      expect(`${status.stdout}${status.stderr}`).not.toContain(token);

      const nobody = spawnSync('runuser', ['-u', 'nobody', '--', 'cat', file], { encoding: 'utf8' });
      expect(nobody.status).not.toBe(0);
      expect(nobody.stderr).toContain('Permission denied');

      running.child.kill('SIGTERM');
      expect(await running.exited).toBe(0);
      const { stdout, stderr } = running.output();
      // Debug logs went to stderr and carry the address, never the token; stdout has it on its one line.
      expect(stderr).toContain('dashboard_listening');
      expect(stderr).not.toContain(token);
      expect(stdout.split('\n').filter((line) => line.includes(token))).toHaveLength(1);
    } finally {
      if (running.child.exitCode === null) running.child.kill('SIGKILL');
    }
  }, 90_000);
});
