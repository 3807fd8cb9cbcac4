import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import { startDashboard, type Dashboard } from '../../src/ops/dashboard-server.js';
import type { OpsSource } from '../../src/ops/ops-source.js';
import { QUEUE_NAMES } from '../../src/queue/queues.js';
import { createRedisConnection } from '../../src/queue/redis-connection.js';
import { WarehouseLockedError } from '../../src/warehouse/index.js';
import { openDashboardStack, type DashboardStack } from '../support/dashboard-stack.js';
import { freePort } from '../support/ports.js';
import { fileTempDir } from '../support/test-env.js';

const logger = createLogger({ level: 'silent', pretty: false });
const TOKEN = 'dashboard-token-7c1f0e9a2b';
let stack: DashboardStack;
const toClose: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  stack = await openDashboardStack();
});

afterAll(async () => {
  for (const item of toClose.reverse()) await item.close();
  await stack?.close();
});

async function start(options: { host?: string; token?: string; source?: OpsSource } = {}): Promise<Dashboard> {
  const dashboard = await startDashboard({ runtime: options.source ?? stack.source, host: options.host ?? '127.0.0.1', port: 0, token: options.token, logger });
  toClose.push(dashboard);
  return dashboard;
}

/** Can something connect to `port` on 127.0.0.1? */
async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(true));
    probe.listen(port, '0.0.0.0', () => probe.close(() => resolve(false)));
  });
}

describe('where the dashboard may listen', () => {
  it('refuses to bind 0.0.0.0 without a token, naming both settings, and listens nowhere', async () => {
    const port = await freePort();
    const attempt = startDashboard({ runtime: stack.source, host: '0.0.0.0', port, logger });
    await expect(attempt).rejects.toBeInstanceOf(UsageError);
    await expect(attempt).rejects.toThrow(/MINTPIPE_DASHBOARD_HOST[\s\S]*MINTPIPE_DASHBOARD_TOKEN/);
    expect(await listening(port)).toBe(false);
  });

  it('refuses any non-loopback address without a token, and a blank token counts as none', async () => {
    await expect(startDashboard({ runtime: stack.source, host: '192.168.1.10', port: 0, logger })).rejects.toBeInstanceOf(UsageError);
    await expect(startDashboard({ runtime: stack.source, host: '::', port: 0, token: '  ', logger })).rejects.toBeInstanceOf(UsageError);
  });

  it('binds loopback without MINTPIPE_DASHBOARD_TOKEN, behind the generated token', async () => {
    const dashboard = await start({ host: 'localhost' });
    expect(dashboard.url).toMatch(/^http:\/\/localhost:\d+$/);
    expect((await fetch(`${dashboard.url}/api/projects`)).status).toBe(401);
    expect((await stack.fetch(`${dashboard.url}/api/projects`)).status).toBe(200);
  });
});

describe('with the default settings (no MINTPIPE_DASHBOARD_TOKEN)', () => {
  let dashboard: Dashboard;
  let dataDir: string;
  beforeAll(async () => {
    // A data dir of this block's own: the token file is made here, by this start.
    dataDir = fileTempDir('dashtoken');
    dashboard = await start({ source: { ...stack.source, config: { ...stack.source.config, dataDir } } });
  });

  it('answers 401 and no data on the page, /api/*, Bull Board and /metrics without the token', async () => {
    await stack.queue(QUEUE_NAMES.export).add('window', { projectId: 'secret-project' });
    for (const path of ['/', '/assets/dashboard.js', '/api/projects', '/api/queues', '/api/export-runs', '/api/prompt-batches', '/metrics', '/queues', '/queues/api/queues']) {
      const response = await fetch(`${dashboard.url}${path}`, { redirect: 'manual' });
      expect(response.status, path).toBe(401);
      const text = await response.text();
      expect(text, path).toMatch(/^mintpipe dashboard: token required/);
      expect(text, path).not.toMatch(/export|secret-project|bullmq/);
    }
  });

  it('answers a wrong token, in the address or as a bearer, with 401 saying the token is not this dashboard\'s, not that one is required', async () => {
    const wrong = 'f'.repeat(48);
    const answers = [
      await fetch(`${dashboard.url}/api/projects?token=${wrong}`, { redirect: 'manual' }),
      await fetch(`${dashboard.url}/api/projects`, { headers: { authorization: `Bearer ${wrong}` } }),
    ];
    for (const response of answers) {
      expect(response.status).toBe(401);
      expect(await response.text()).toBe("mintpipe dashboard: wrong token: it is not this dashboard's (open the address start or dashboard printed, or send its token as Authorization: Bearer …)\n");
    }
  });

  it('still answers /healthz without the token', async () => {
    expect((await fetch(`${dashboard.url}/healthz`)).status).toBe(200);
  });

  it('keeps the token 0600 in <dataDir>/dashboard-token, and the browser address carries it', async () => {
    const file = join(dataDir, 'dashboard-token');
    expect(dashboard.tokenFile).toBe(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const token = readFileSync(file, 'utf8').trim();
    expect(token).toMatch(/^[0-9a-f]{48}$/);
    expect(dashboard.browserUrl).toBe(`${dashboard.url}/?token=${token}`);
  });

  it('opens from the browser address: a cookie, the token gone from the address, then data', async () => {
    const first = await fetch(dashboard.browserUrl, { redirect: 'manual' });
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toBe('/');
    const session = (first.headers.get('set-cookie') ?? '').split(';')[0]!;
    expect((await fetch(`${dashboard.url}/api/projects`, { headers: { cookie: session } })).status).toBe(200);
  });

  it('reuses the token at the next start, so a bookmark or a scrape config keeps working', async () => {
    const before = readFileSync(join(dataDir, 'dashboard-token'), 'utf8');
    await dashboard.close();
    const again = await start({ source: { ...stack.source, config: { ...stack.source.config, dataDir } } });
    expect(readFileSync(join(dataDir, 'dashboard-token'), 'utf8')).toBe(before);
    expect((await fetch(`${again.url}/metrics`, { headers: { authorization: `Bearer ${before.trim()}` } })).status).toBe(200);
    expect(again.browserUrl).toBe(`${again.url}/?token=${before.trim()}`);
  });
});

describe('with MINTPIPE_DASHBOARD_TOKEN', () => {
  let url: string;
  beforeAll(async () => {
    const dashboard = await start({ host: '0.0.0.0', token: TOKEN });
    url = dashboard.url.replace('0.0.0.0', '127.0.0.1');
  });

  it('shows the browser address without the token (the user has it) and keeps no token file', async () => {
    const dataDir = fileTempDir('dashtoken');
    const dashboard = await start({ token: TOKEN, source: { ...stack.source, config: { ...stack.source.config, dataDir } } });
    expect(dashboard.browserUrl).toBe(`${dashboard.url}/`);
    expect(dashboard.tokenFile).toBeUndefined();
    expect(existsSync(join(dataDir, 'dashboard-token'))).toBe(false);
  });

  it('answers 401 on every route but /healthz without it', async () => {
    for (const path of ['/', '/assets/dashboard.js', '/api/projects', '/metrics', '/queues', '/queues/api/queues']) {
      const response = await fetch(`${url}${path}`, { redirect: 'manual' });
      expect(response.status, path).toBe(401);
      expect(await response.text()).not.toContain(TOKEN);
    }
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });

  it('accepts Authorization: Bearer and refuses a wrong one', async () => {
    expect((await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect((await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
    expect((await fetch(`${url}/metrics`, { headers: { authorization: TOKEN } })).status).toBe(401);
  });

  it('takes ?token= once: sets a cookie without the token in it and redirects to the URL without it', async () => {
    const first = await fetch(`${url}/?token=${TOKEN}&x=1`, { redirect: 'manual' });
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toBe('/?x=1');
    const cookie = first.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^mintpipe_dashboard_[0-9a-f]{12}=[0-9a-f]{64}; HttpOnly; SameSite=Strict; Path=\//);
    expect(cookie).not.toContain(TOKEN);
    const session = cookie.split(';')[0]!;
    const page = await fetch(`${url}/?x=1`, { headers: { cookie: session } });
    expect(page.status).toBe(200);
    expect(await page.text()).not.toContain(TOKEN);
    expect((await fetch(`${url}/api/projects`, { headers: { cookie: session } })).status).toBe(200);
    expect((await fetch(`${url}/api/projects`, { headers: { cookie: `${session.split('=')[0]}=0000` } })).status).toBe(401);
    expect((await fetch(`${url}/?token=wrong`, { redirect: 'manual' })).status).toBe(401);
  });
});

describe('two dashboards on one machine', () => {
  it('each keep their own cookie: a browser holding both (cookies are per host, not per port) is let into each', async () => {
    const other = `${TOKEN}-other`;
    const [first, second] = [await start({ token: TOKEN }), await start({ token: other })];
    const cookies: string[] = [];
    for (const [dashboard, token] of [[first, TOKEN], [second, other]] as const) {
      const opened = await fetch(`${dashboard.url}/?token=${token}`, { redirect: 'manual' });
      cookies.push((opened.headers.get('set-cookie') ?? '').split(';')[0]!);
    }
    expect(cookies[0]!.split('=')[0]).not.toBe(cookies[1]!.split('=')[0]);
    // What the browser sends to either port once both were opened: both cookies.
    const both = cookies.join('; ');
    for (const dashboard of [first, second]) expect((await fetch(`${dashboard.url}/api/projects`, { headers: { cookie: both } })).status).toBe(200);
  });
});

describe('/healthz', () => {
  it('answers 200 with redis and warehouse ok', async () => {
    const dashboard = await start();
    const response = await fetch(`${dashboard.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ redis: 'ok', warehouse: 'ok' });
  });

  it('answers 503 naming the warehouse when it cannot be opened', async () => {
    const source: OpsSource = {
      queue: stack.source.queue,
      redis: stack.redis,
      warehouse: () => Promise.reject(new WarehouseLockedError('/data/clickhouse', 4242)),
      config: stack.source.config,
    };
    const dashboard = await start({ source });
    const response = await fetch(`${dashboard.url}/healthz`);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ redis: 'ok', warehouse: 'failed', errors: { warehouse: expect.stringMatching(/in use by another mintpipe process/) } });
    // The API says the same instead of hanging or crashing.
    const api = await stack.fetch(`${dashboard.url}/api/projects`);
    expect(api.status).toBe(503);
    expect(((await api.json()) as { error: string }).error).toMatch(/in use/);
  });

  it('answers 503 naming Redis when Redis is down, instead of hanging', async () => {
    const deadPort = await freePort();
    const deadRedis = createRedisConnection(`redis://127.0.0.1:${deadPort}`, 'dead');
    deadRedis.on('error', () => undefined);
    toClose.push({ close: async () => deadRedis.disconnect() });
    const dashboard = await start({ source: { ...stack.source, redis: deadRedis } });
    const response = await fetch(`${dashboard.url}/healthz`);
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ redis: 'failed', warehouse: 'ok', errors: { redis: expect.stringMatching(/redis/) } });
  });
});
