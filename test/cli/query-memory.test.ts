/**
 * Bounds, not speed: a 10-million-row result streams through `mintpipe query` without the
 * serving process or the query process holding it. While a `start` answers it through its
 * warehouse gateway, its /healthz keeps answering within 1 s and its RSS grows by at most 256 MB
 * over idle; a one-shot query of the same, with nothing running, grows by at most 100 MB over a
 * trivial one. RSS is read from /proc/<pid>/status while the processes run.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { gatewayPid } from '../../src/warehouse/gateway-client.js';
import { startCli } from '../support/run-cli.js';
import { sampleRss, vmRssBytes } from '../support/rss.js';
import { until } from '../support/wait.js';
import { fileTempDir } from '../support/test-env.js';

const MB = 1024 * 1024;
const TEN_MILLION = 'SELECT number FROM numbers(1e7)';
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = fileTempDir('query-memory');
  dirs.push(dir);
  return dir;
}

interface CountedRun {
  code: number | null;
  /** Lines printed on stdout (counted as they arrive, never kept). */
  lines: number;
  lastLine: string;
  stderr: string;
  /** Highest RSS of the query process while it ran. */
  peakRssBytes: number;
}

/** Runs `mintpipe query SQL --format csv`, counting its output and sampling its RSS. */
function queryCsv(sql: string, env: Record<string, string | undefined>): Promise<CountedRun> {
  const child = spawn(process.execPath, ['bin/mintpipe.js', 'query', sql, '--format', 'csv', '--timeout', '10m'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const rss = sampleRss(child.pid!, 20);
  let lines = 0;
  let tail = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines += 1;
    tail = (tail + chunk.subarray(Math.max(0, chunk.length - 64)).toString()).slice(-64);
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => {
    child.on('exit', () => rss.stop());
    child.on('close', (code) => resolve({ code, lines, lastLine: tail.trimEnd().split('\n').at(-1) ?? '', stderr, peakRssBytes: rss.stop() }));
  });
}

describe('a 10-million-row query in csv', () => {
  it('through a running start: /healthz answers within 1 s throughout and start grows by at most 256 MB', async () => {
    const dir = dataDir();
    const env = {
      REDIS_URL: process.env.REDIS_URL!,
      MINTPIPE_DATA_DIR: dir,
      MINTPIPE_QUEUE_PREFIX: `qm${randomBytes(4).toString('hex')}`,
      MINTPIPE_DASHBOARD_PORT: '0',
      MINTLIFY_API_KEY: '',
      LOG_LEVEL: 'warn',
    };
    const start = await startCli(['start', '--demo-days', '0', '--no-scheduler'], env);
    try {
      // The printed address carries the dashboard's token (`/?token=…`); /healthz needs none.
      const url = /dashboard: (http:\/\/[^/\s]+)/.exec(start.output().stdout)?.[1];
      expect(url).toBeDefined();
      const probe = async () => {
        const began = performance.now();
        const response = await fetch(`${url}/healthz`);
        await response.arrayBuffer();
        return { status: response.status, ms: performance.now() - began };
      };
      expect((await probe()).status).toBe(200);
      await until('the gateway of start', async () => (gatewayPid(dir) === start.child.pid ? true : undefined));
      // Idle: up, warehouse open, healthy, nothing asked.
      const idleRss = sampleRss(start.child.pid!, 50);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const idleBytes = idleRss.stop();

      const startRss = sampleRss(start.child.pid!, 50);
      const probes: Array<{ status: number; ms: number }> = [];
      let querying = true;
      const prober = (async () => {
        while (querying) {
          const next = new Promise((resolve) => setTimeout(resolve, 250));
          probes.push(await probe());
          await next;
        }
      })();
      const run = await queryCsv(TEN_MILLION, env);
      querying = false;
      await prober;
      const peakBytes = startRss.stop();

      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toBe('');
      expect(run.lines).toBe(10_000_001);
      expect(run.lastLine).toBe('9999999');
      expect(probes.length).toBeGreaterThan(4);
      expect(probes.every((p) => p.status === 200)).toBe(true);
      expect(Math.max(...probes.map((p) => p.ms))).toBeLessThan(1000);
      expect((peakBytes - idleBytes) / MB).toBeLessThanOrEqual(256);
      expect(vmRssBytes(start.child.pid!)).toBeDefined();
    } finally {
      start.child.kill('SIGTERM');
      await start.exited;
    }
  }, 240_000);

  it('as a one-shot query with nothing running: RSS grows by at most 100 MB over a trivial query', async () => {
    const env = { MINTPIPE_DATA_DIR: dataDir(), LOG_LEVEL: 'warn', REDIS_URL: process.env.REDIS_URL };
    const idle = await queryCsv('SELECT 1', env);
    expect(idle.code, idle.stderr).toBe(0);
    const run = await queryCsv(TEN_MILLION, env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines).toBe(10_000_001);
    expect(run.lastLine).toBe('9999999');
    expect((run.peakRssBytes - idle.peakRssBytes) / MB).toBeLessThanOrEqual(100);
  }, 240_000);
});
