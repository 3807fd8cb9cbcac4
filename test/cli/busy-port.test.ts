/**
 * A port another process holds is a runtime condition, not a bug: start, dashboard and a worker's
 * metrics server say in one line which address is taken and which setting to change, exit 1, and
 * leave nothing they had started behind (the private redis-server, the warehouse claim).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineName } from '../support/engine.js';
import { alive } from '../support/processes.js';
import { runCli } from '../support/run-cli.js';
import { testEnv } from '../support/test-env.js';
import { until } from '../support/wait.js';

let holder: Server;
let port = 0;
beforeAll(async () => {
  holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  port = (holder.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

/** Exactly one line on stderr, and no stack frame. */
function oneLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
  return lines[0]!;
}

describe('a busy port', () => {
  it('makes start say which setting to change, exit 1, and stop the private redis-server and release the warehouse it took', async () => {
    const env: Record<string, string | undefined> = testEnv({ MINTPIPE_DASHBOARD_PORT: String(port) });
    delete env.REDIS_URL;
    const result = await runCli(['start', '--no-workers', '--no-scheduler'], env);
    expect(result.code, result.stderr).toBe(1);
    expect(oneLine(result.stderr)).toBe(
      `mintpipe: the dashboard cannot listen on 127.0.0.1:${port}: the port is in use by another process; set MINTPIPE_DASHBOARD_PORT to a free port, or run start --no-dashboard`,
    );
    const dataDir = env.MINTPIPE_DATA_DIR!;
    const redisPid = (JSON.parse(readFileSync(join(dataDir, 'redis', 'server.json'), 'utf8')) as { pid: number }).pid;
    await until(`the private redis-server (pid ${redisPid}) to stop`, async () => (alive(redisPid) ? undefined : true));
    if (engineName() === 'embedded') {
      expect(existsSync(join(dataDir, 'clickhouse', 'mintpipe.claim'))).toBe(false);
      expect(existsSync(join(dataDir, 'clickhouse', 'mintpipe.pid'))).toBe(false);
    }
  }, 60_000);

  it('makes dashboard name --port, exit 1', async () => {
    const result = await runCli(['dashboard', '--port', String(port)], testEnv());
    expect(result.code, result.stderr).toBe(1);
    expect(oneLine(result.stderr)).toBe(
      `mintpipe: the dashboard cannot listen on 127.0.0.1:${port}: the port is in use by another process; give --port (or MINTPIPE_DASHBOARD_PORT) a free port`,
    );
  }, 60_000);

  it('makes worker name --metrics-port, exit 1', async () => {
    const result = await runCli(['worker', '--metrics-port', String(port)], testEnv());
    expect(result.code, result.stderr).toBe(1);
    expect(oneLine(result.stderr)).toBe(
      `mintpipe: the metrics server cannot listen on 127.0.0.1:${port}: the port is in use by another process; give --metrics-port (or MINTPIPE_METRICS_PORT) a free port`,
    );
  }, 60_000);
});
