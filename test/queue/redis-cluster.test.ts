import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitBatch, waitForBatch } from '../../src/prompts/index.js';
import { QUEUE_NAMES } from '../../src/queue/queues.js';
import { analyticsBudget } from '../../src/queue/request-budget.js';
import { createRedisConnection, isCluster } from '../../src/queue/redis-connection.js';
import { checkRedisPersistence } from '../../src/queue/redis-persistence.js';
import { openExportStack, TEST_API_KEY, type ExportStack } from '../support/export-stack.js';
import { promptsOver } from '../support/prompts-stack.js';
import { startTestCluster, type TestCluster } from '../support/redis-cluster.js';

let cluster: TestCluster;
let stack: ExportStack;
beforeAll(async () => {
  cluster = await startTestCluster();
  // The upstream allows 10 analytics requests per 3 s; mintpipe's one budget paces everyone at that.
  stack = await openExportStack({
    emulator: { analyticsRate: { limit: 10, windowMs: 3000 } },
    env: { REDIS_URL: cluster.url, MINTPIPE_ANALYTICS_RATE: '10/3s' },
    queues: [QUEUE_NAMES.export, QUEUE_NAMES.prompts],
  });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await cluster?.stop();
});

describe('on a Redis Cluster of 3 masters (REDIS_URL=redis+cluster://…)', () => {
  it('checks persistence on every master', async () => {
    expect(isCluster(stack.runtime.redis)).toBe(true);
    const report = await checkRedisPersistence(stack.runtime.redis);
    expect(report.durable).toBe(true);
    expect(report.nodes.map((n) => n.node).sort()).toEqual(cluster.ports.map((p) => `127.0.0.1:${p}`).sort());
  });

  it('exports a window under the budget with one worker while a second client spends from the same budget: exact, and no 429 upstream', async () => {
    const project = 'paced-2400'; // 2,400 paths = 10 pages
    const window = { dateFrom: '2026-10-01', dateTo: '2026-10-02' };
    // Another process of the organization: its own cluster connection, the same budget, and a real
    // request upstream for every grant, so overspending together would show as a 429.
    const other = createRedisConnection(cluster.url, 'second-client');
    const budget = analyticsBudget(other, stack.config.queuePrefix, stack.config.analyticsRate);
    let otherGrants = 0;
    const spend = (async () => {
      while (otherGrants < 8) {
        const take = await budget.tryTake();
        if (!take.granted) {
          await new Promise((r) => setTimeout(r, take.waitMs));
          continue;
        }
        otherGrants++;
        const res = await fetch(`${stack.emulator.url}/v1/analytics/other-docs/visitors?dateFrom=${window.dateFrom}&dateTo=${window.dateTo}&limit=250&offset=0`, {
          headers: { authorization: `Bearer ${TEST_API_KEY}` },
        });
        expect(res.status).toBe(200);
      }
    })();
    const [result] = await stack.exportWindows([{ projectId: project, ...window }]);
    await spend;
    other.disconnect();

    expect(result?.state).toBe('completed');
    expect((result?.returnvalue as { requests: number }).requests).toBe(10);
    expect(otherGrants).toBe(8);
    expect(stack.emulator.counters.analyticsRequests).toBe(18);
    expect(stack.emulator.counters.analytics429).toBe(0);
    const truth = stack.emulator.control.window(project, window.dateFrom, window.dateTo);
    const rows = await stack.rows(`SELECT path, human, ai, total FROM visitors WHERE project_id = '${project}' ORDER BY total DESC, path ASC`);
    expect(rows.map((r) => ({ path: r.path, human: Number(r.human), ai: Number(r.ai), total: Number(r.total) }))).toEqual(truth.visitors);
  }, 120_000);

  it('runs a prompt batch on the same cluster (its ledger scripts on one slot): each prompt POSTed at most once, in order per job', async () => {
    const prefix = stack.config.queuePrefix;
    const prompts = promptsOver('cluster-docs', 4, 2);
    const batch = await submitBatch({ redis: stack.runtime.redis, queue: stack.runtime.queue(QUEUE_NAMES.prompts), prefix }, prompts);
    const status = await waitForBatch(stack.runtime.redis, prefix, batch.batchId, { intervalMs: 50, signal: AbortSignal.timeout(60_000) });
    expect(status.done).toBe(prompts.length);
    const sent = stack.emulator.messages.filter((m) => m.projectId === 'cluster-docs');
    expect(new Set(sent.map((m) => m.prompt)).size).toBe(sent.length);
    expect(sent.length + status.byStatus.rejected).toBe(prompts.length);
    for (const job of ['job-1', 'job-2', 'job-3', 'job-4']) {
      const order = sent.filter((m) => m.jobId === job).map((m) => m.prompt);
      expect(order).toEqual([...order].sort());
    }
  }, 120_000);
});
