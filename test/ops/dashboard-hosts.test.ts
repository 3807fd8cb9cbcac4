import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { hostHeaderName } from '../../src/ops/dashboard-hosts.js';
import { startDashboard, type Dashboard } from '../../src/ops/dashboard-server.js';
import { QUEUE_NAMES } from '../../src/queue/queues.js';
import { openDashboardStack, type DashboardStack } from '../support/dashboard-stack.js';

const logger = createLogger({ level: 'silent', pretty: false });
const TOKEN = 'hosts-test-token-93b1d0c5e7';
const PATHS = ['/', '/api/queues', '/queues', '/queues/api/queues', '/metrics', '/healthz'];
let stack: DashboardStack;
let loopback: Dashboard;
let everywhere: Dashboard;

beforeAll(async () => {
  stack = await openDashboardStack();
  await stack.queue(QUEUE_NAMES.prompts).add('prompt', { batchId: '0123456789abcdef', promptId: '0123456789abcdef0123', attempt: 0 }, { jobId: 'visible-job' });
  loopback = await startDashboard({ runtime: stack.source, host: '127.0.0.1', port: 0, logger });
  everywhere = await startDashboard({ runtime: stack.source, host: '0.0.0.0', port: 0, token: TOKEN, hosts: ['dash.example.com', 'fd00::7'], logger });
});

afterAll(async () => {
  await loopback?.close();
  await everywhere?.close();
  await stack?.close();
});

/** One request to the dashboard's port on 127.0.0.1 with the Host header a browser would send for `host`. */
function send(dashboard: Dashboard, path: string, host: string | undefined, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const port = Number(new URL(dashboard.url.replace('0.0.0.0', '127.0.0.1')).port);
  return new Promise((resolve, reject) => {
    const options = host === undefined ? { setHost: false, headers } : { headers: { host, ...headers } };
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', ...options }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the Host header (DNS rebinding)', () => {
  it('refuses a foreign host name with 421 and no data, on every route', async () => {
    for (const host of ['evil.example', `evil.example:${new URL(loopback.url).port}`, 'localhost.evil.example', '127.0.0.1.nip.io', 'attacker']) {
      for (const path of PATHS) {
        const response = await send(loopback, path, host);
        expect(response.status, `${host} ${path}`).toBe(421);
        expect(response.body).not.toContain(QUEUE_NAMES.prompts);
        expect(response.body).not.toContain('visible-job');
        expect(response.body).not.toMatch(/redis|warehouse|mintpipe_/);
        expect(response.body).not.toContain(host);
      }
    }
  });

  it('serves localhost, 127.0.0.1 and [::1], with or without a port', async () => {
    const port = new URL(loopback.url).port;
    for (const host of ['localhost', `localhost:${port}`, '127.0.0.1', `127.0.0.1:${port}`, '[::1]', `[::1]:${port}`, 'LocalHost']) {
      const response = await send(loopback, '/queues/api/queues', host, { authorization: `Bearer ${stack.token()}` });
      expect(response.status, host).toBe(200);
      expect(response.body).toContain(QUEUE_NAMES.prompts);
    }
  });

  it('refuses a missing or malformed Host header', async () => {
    for (const host of ['localhost:', 'localhost:3000:1', '::1', '[::1', 'localhost/x']) {
      expect((await send(loopback, '/api/queues', host)).status, JSON.stringify(host)).toBe(421);
    }
    // Node itself answers 400 to an HTTP/1.1 request without Host; either way, nothing is served.
    expect([400, 421]).toContain((await send(loopback, '/api/queues', undefined)).status);
  });

  it('serves the bind address and MINTPIPE_DASHBOARD_HOSTS, and refuses anything else before the token check', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    for (const host of ['dash.example.com', 'DASH.example.com:8443', '[fd00::7]:3000', '0.0.0.0', 'localhost']) {
      expect((await send(everywhere, '/api/queues', host, auth)).status, host).toBe(200);
    }
    for (const host of ['other.example.com', 'example.com', 'dash.example.com.evil.example', '192.168.1.20']) {
      const response = await send(everywhere, '/api/queues', host, auth);
      expect(response.status, host).toBe(421);
      expect(response.body).not.toContain(QUEUE_NAMES.prompts);
    }
    // The token is checked only for names it serves: a foreign name learns nothing about it.
    expect((await send(everywhere, '/api/queues', 'dash.example.com')).status).toBe(401);
    expect((await send(everywhere, '/api/queues', 'evil.example')).status).toBe(421);
  });

  it('reads the name part of a Host header', () => {
    expect(hostHeaderName('localhost:3000')).toBe('localhost');
    expect(hostHeaderName('[::1]:3000')).toBe('[::1]');
    expect(hostHeaderName('Dash.Example.COM')).toBe('dash.example.com');
    expect(hostHeaderName('::1')).toBeUndefined();
    expect(hostHeaderName(undefined)).toBeUndefined();
  });
});
