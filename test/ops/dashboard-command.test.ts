import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testEnv } from '../support/export-stack.js';
import { runCli } from '../support/run-cli.js';
import { until } from '../support/wait.js';

const children: Array<ReturnType<typeof spawn>> = [];
const dataDir = mkdtempSync(join(tmpdir(), 'mintpipe-dashboard-cmd-'));
const env = (extra: Record<string, string> = {}) => testEnv({ MINTPIPE_DATA_DIR: dataDir, ...extra });

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** Status of GET /api/queues at `url` with a browser's Host header for `host`. */
function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/queues`, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('mintpipe dashboard', () => {
  it('refuses to bind 0.0.0.0 without MINTPIPE_DASHBOARD_TOKEN: exit 2, one line naming both settings', async () => {
    const result = await runCli(['dashboard', '--host', '0.0.0.0', '--port', '0'], env());
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^mintpipe: MINTPIPE_DASHBOARD_HOST: .*MINTPIPE_DASHBOARD_TOKEN/);
  });

  it('refuses a dashboard token under 16 characters: exit 2, one line naming the key, the token nowhere', async () => {
    const result = await runCli(['dashboard', '--port', '0'], env({ MINTPIPE_DASHBOARD_TOKEN: 'Qz7#short' }));
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^mintpipe: MINTPIPE_DASHBOARD_TOKEN: expected at least 16 characters/);
    expect(`${result.stdout}${result.stderr}`).not.toContain('Qz7#short');
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
    expect(await statusWithHost(url, 'dash.internal')).toBe(200);
    expect(await statusWithHost(url, 'rebound.example')).toBe(421);
    // Each probe is bounded (3 s): on a loaded machine the first may miss it, so the test waits for health to come.
    const health = await until('/healthz to answer 200', async () => {
      const res = await fetch(`${url}/healthz`);
      return res.status === 200 ? res : undefined;
    }, 30_000, 250);
    expect(await health.json()).toEqual({ redis: 'ok', warehouse: 'ok' });
    expect((await fetch(`${url}/`)).status).toBe(200);

    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).toBe(0);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
