/**
 * The shared budget counts what reached the upstream: an attempt refused before a connection was
 * made gives its slot back, so the budget's used count (what `status` shows) and the run's
 * `export_runs.requests` agree with what the upstream itself counted.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/cli/runtime.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { enqueueWindows } from '../../src/export/enqueue.js';
import { QUEUE_NAMES } from '../../src/queue/queues.js';
import { analyticsBudget } from '../../src/queue/request-budget.js';
import { runQuery } from '../../src/warehouse/index.js';
import { freePort } from '../support/ports.js';
import { UNPACED_ENV } from '../support/test-env.js';
import { openTestStack, type TestStack } from '../support/test-stack.js';
import { until } from '../support/wait.js';

let emulator: RunningEmulator;
let stack: TestStack | undefined;
let runtime: Runtime;
let proxy: Server | undefined;
const sockets = new Set<Socket>();
let refused = 0;

/** Starts forwarding `port` to the emulator: until then, connections to it are refused. */
function openProxy(port: number): void {
  proxy = createServer((client) => {
    const upstream = connect(Number(new URL(emulator.url).port), '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  proxy.listen(port, '127.0.0.1');
}

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  const port = await freePort();
  stack = await openTestStack({
    env: { ...UNPACED_ENV, MINTLIFY_API_URL: `http://127.0.0.1:${port}`, MINTPIPE_ANALYTICS_RATE: '1000/1h' },
    workers: [QUEUE_NAMES.export],
    observers: {
      // The first refused attempt opens the way: the run then meets the emulator's faults.
      onApiEvent: (event) => {
        if (event.reason !== 'network') return;
        refused++;
        if (!proxy) openProxy(port);
      },
    },
  });
  runtime = stack.runtime;
});

afterAll(async () => {
  await stack?.close();
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
  await emulator?.close();
});

describe('the analytics budget after a run with faults and a refused connection', () => {
  it('counts in the budget and in export_runs.requests exactly the requests the upstream received', async () => {
    emulator.control.script('visitors', [{ kind: 'status', status: 500 }, { kind: 'status', status: 503 }]);
    const queue = runtime.queue(QUEUE_NAMES.export);
    const [enqueued] = await enqueueWindows(queue, [{ dataset: 'visitors', projectId: 'budget-600', dateFrom: '2026-10-01', dateTo: '2026-10-02', kind: 'manual' }]);
    await until('the window to end', async () => ((await queue.getJobState(enqueued!.jobId)) in { completed: 1, failed: 1 } ? true : undefined), 120_000);
    expect(await queue.getJobState(enqueued!.jobId)).toBe('completed');

    const received = emulator.counters.analyticsRequests;
    expect(refused).toBeGreaterThanOrEqual(1);
    // 3 pages of 250 and the two injected server errors.
    expect(received).toBe(5);
    const warehouse = await runtime.warehouse();
    const runs = await runQuery(warehouse, "SELECT status, requests FROM export_runs WHERE project_id = 'budget-600'");
    expect(runs.rows.map((r) => [r.status, Number(r.requests)])).toEqual([['complete', received]]);
    const usage = await analyticsBudget(runtime.redis, runtime.config.queuePrefix, runtime.config.analyticsRate).usage();
    expect(usage.used).toBe(received);
    // Every answered request counts from its answer, none as still in flight (which would hold
    // its slot for the request timeout on top of the window).
    const [seconds, micros] = await runtime.redis.time();
    const nowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const scores = (await runtime.redis.zrange(`{${runtime.config.queuePrefix}:budget:analytics}:taken`, 0, -1, 'WITHSCORES')).filter((_, i) => i % 2 === 1).map(Number);
    expect(scores).toHaveLength(received);
    for (const score of scores) expect(score).toBeLessThanOrEqual(nowMs);
  });
});
