import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { startMetricsServer, type MetricsServer } from '../../src/ops/metrics-server.js';
import { QUEUE_NAMES } from '../../src/queue/queues.js';
import { openDashboardStack, type DashboardStack } from '../support/dashboard-stack.js';

const logger = createLogger({ level: 'silent', pretty: false });
let stack: DashboardStack;
const servers: MetricsServer[] = [];

beforeAll(async () => {
  stack = await openDashboardStack();
  await stack.queue(QUEUE_NAMES.export).add('window', { n: 1 });
});

afterAll(async () => {
  for (const server of servers) await server.close();
  await stack?.close();
});

describe("a worker's own /metrics endpoint", () => {
  it("serves the process's pipeline counters, leaving queue gauges to the dashboard by default", async () => {
    const metrics = createMetrics();
    metrics.exportObserver.pageFetched('acme');
    const server = await startMetricsServer({ runtime: stack.source, metrics, host: '127.0.0.1', port: 0, logger });
    servers.push(server);
    const text = await (await stack.fetch(`${server.url}/metrics`)).text();
    expect(text).toMatch(/^mintpipe_pages_fetched_total\{project="acme"\} 1$/m);
    expect(text).not.toMatch(/^bullmq_job_count\{/m);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('also reads the queue gauges when asked (no dashboard running)', async () => {
    const server = await startMetricsServer({ runtime: stack.source, metrics: createMetrics(), host: '127.0.0.1', port: 0, sharedGauges: true, logger });
    servers.push(server);
    const text = await (await stack.fetch(`${server.url}/metrics`)).text();
    expect(text).toMatch(/^bullmq_job_count\{queue="export",state="waiting"\} 1$/m);
  });

  it('answers 401 and no counters without the generated token by default, and /healthz still', async () => {
    const metrics = createMetrics();
    metrics.exportObserver.pageFetched('acme');
    const server = await startMetricsServer({ runtime: stack.source, metrics, host: '127.0.0.1', port: 0, logger });
    servers.push(server);
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(401);
    expect(await response.text()).not.toContain('mintpipe_pages_fetched_total');
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer 0123456789abcdef0123456789abcdef0123456789abcdef' } })).status).toBe(401);
    expect(server.tokenFile).toBe(join(stack.dataDir, 'dashboard-token'));
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${stack.token()}` } })).status).toBe(200);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('refuses a non-loopback address without a token, and requires the token when set', async () => {
    await expect(startMetricsServer({ runtime: stack.source, metrics: createMetrics(), host: '0.0.0.0', port: 0, logger })).rejects.toBeInstanceOf(UsageError);
    const server = await startMetricsServer({ runtime: stack.source, metrics: createMetrics(), host: '0.0.0.0', port: 0, token: 'scrape-secret', logger });
    servers.push(server);
    const url = server.url.replace('0.0.0.0', '127.0.0.1');
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    expect((await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer scrape-secret' } })).status).toBe(200);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});
