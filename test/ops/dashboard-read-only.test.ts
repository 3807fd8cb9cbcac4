import { appRoutes } from '@bull-board/api/dist/routes.js';
import { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { startDashboard, type Dashboard } from '../../src/ops/dashboard-server.js';
import { openQueue, QUEUE_NAMES } from '../../src/queue/queues.js';
import { createRedisConnection } from '../../src/queue/redis-connection.js';
import { openDashboardStack, type DashboardStack } from '../support/dashboard-stack.js';
import { until } from '../support/wait.js';

const logger = createLogger({ level: 'silent', pretty: false });
const TOKEN = 'read-only-test-token-4f9e2a7c';
const WRITE_METHODS = ['POST', 'PUT', 'DELETE', 'PATCH'];
let stack: DashboardStack;
let open: Dashboard;
let guarded: Dashboard;

beforeAll(async () => {
  stack = await openDashboardStack();
  // Something to retry, promote, clean or remove: a waiting, a delayed and a failed job.
  await stack.queue(QUEUE_NAMES.prompts).add('prompt', { batchId: '0123456789abcdef', promptId: '0123456789abcdef0123', attempt: 0 }, { jobId: 'waiting-1' });
  await stack.queue(QUEUE_NAMES.prompts).add('prompt', { batchId: '0123456789abcdef', promptId: 'fedcba98765432100123', attempt: 0 }, { jobId: 'delayed-1', delay: 3_600_000 });
  open = await startDashboard({ runtime: stack.source, host: '127.0.0.1', port: 0, logger });
  guarded = await startDashboard({ runtime: stack.source, host: '127.0.0.1', port: 0, token: TOKEN, logger });
});

afterAll(async () => {
  await open?.close();
  await guarded?.close();
  await stack?.close();
});

/** Every key under the stack's queue prefix with its serialized value: any write changes it. */
async function redisSnapshot(): Promise<Map<string, string>> {
  const keys = (await stack.redis.keys(`${stack.prefix}:*`)).sort();
  const snapshot = new Map<string, string>();
  for (const key of keys) snapshot.set(key, ((await stack.redis.dumpBuffer(key)) ?? Buffer.alloc(0)).toString('hex'));
  return snapshot;
}

/** Bull Board's write routes as it declares them, with their parameters filled in. */
function boardWriteRequests(): Array<{ method: string; path: string }> {
  const params: Record<string, string> = {
    queueName: QUEUE_NAMES.prompts,
    jobId: 'waiting-1',
    queueStatus: 'waiting',
    schedulerId: 'nightly-export',
  };
  return appRoutes.api
    .flatMap((route) => {
      const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== 'get');
      const paths = Array.isArray(route.route) ? route.route : [route.route];
      return methods.flatMap((method) => paths.map((path) => ({ method: method.toUpperCase(), path })));
    })
    .map(({ method, path }) => ({ method, path: `/queues${path.replace(/:(\w+)/g, (_m, name: string) => params[name] ?? name)}` }));
}

interface BoardQueue {
  name: string;
  readOnlyMode: boolean;
  allowRetries: boolean;
  isPaused: boolean;
  jobs: Array<{ id: string; failedReason?: string; stacktrace: string[] }>;
}

async function boardQueues(url: string, query = '', headers: Record<string, string> = {}): Promise<BoardQueue[]> {
  const response = await stack.fetch(`${url}/queues/api/queues${query}`, { headers });
  expect(response.status).toBe(200);
  return ((await response.json()) as { queues: BoardQueue[] }).queues;
}

describe('without MINTPIPE_DASHBOARD_TOKEN the dashboard only reads, also for whoever has its generated token', () => {

  it('shows every queue in Bull Board read-only, without retries', async () => {
    const queues = await boardQueues(open.url);
    expect(queues.map((q) => q.name).sort()).toEqual([QUEUE_NAMES.export, QUEUE_NAMES.prompts].sort());
    for (const queue of queues) {
      expect(queue.readOnlyMode, queue.name).toBe(true);
      expect(queue.allowRetries, queue.name).toBe(false);
    }
  });

  it('answers a write without the token 401, and changes nothing', async () => {
    const before = await redisSnapshot();
    const response = await fetch(`${open.url}/queues/api/queues/${QUEUE_NAMES.prompts}/pause`, { method: 'PUT' });
    expect(response.status).toBe(401);
    expect(await redisSnapshot()).toEqual(before);
  });

  it('refuses a POST that would add a job (405) and Redis is unchanged', async () => {
    const before = await redisSnapshot();
    const response = await stack.fetch(`${open.url}/queues/api/queues/${QUEUE_NAMES.export}/add`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'window', data: { kind: 'bogus', projectId: 'p', dateFrom: '1900-01-01', dateTo: '9999-12-31' } }),
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(await stack.queue(QUEUE_NAMES.export).count()).toBe(0);
    expect(await redisSnapshot()).toEqual(before);
  });

  it('refuses a PUT that would pause the prompts queue (405) and the queue keeps running', async () => {
    const before = await redisSnapshot();
    const response = await stack.fetch(`${open.url}/queues/api/queues/${QUEUE_NAMES.prompts}/pause`, { method: 'PUT' });
    expect(response.status).toBe(405);
    expect(await stack.queue(QUEUE_NAMES.prompts).isPaused()).toBe(false);
    expect(await redisSnapshot()).toEqual(before);
  });

  it('refuses every write route Bull Board declares, with every write method, and none of them changes Redis', async () => {
    const requests = boardWriteRequests();
    expect(requests.length).toBeGreaterThan(20);
    const before = await redisSnapshot();
    for (const { method, path } of requests) {
      for (const tried of new Set([method, ...WRITE_METHODS])) {
        const response = await stack.fetch(`${open.url}${path}`, { method: tried, headers: { 'content-type': 'application/json' }, body: '{}' });
        expect(response.status, `${tried} ${path}`).toBe(405);
      }
    }
    expect(await redisSnapshot()).toEqual(before);
    expect(await stack.queue(QUEUE_NAMES.prompts).getJobCounts('waiting', 'delayed')).toEqual({ waiting: 1, delayed: 1 });
  });

  it('refuses writes to its own routes too', async () => {
    for (const path of ['/', '/api/projects', '/api/queues', '/metrics', '/healthz']) {
      expect((await stack.fetch(`${open.url}${path}`, { method: 'POST', body: '{}' })).status, path).toBe(405);
    }
  });

  it('still reads: pages, the API and Bull Board answer GET and HEAD', async () => {
    for (const path of ['/', '/api/projects', '/queues', '/queues/api/queues']) {
      expect((await stack.fetch(`${open.url}${path}`)).status, path).toBe(200);
      expect((await stack.fetch(`${open.url}${path}`, { method: 'HEAD' })).status, `HEAD ${path}`).toBe(200);
    }
  });
});

describe('with MINTPIPE_DASHBOARD_TOKEN, writes are allowed and need it', () => {
  it('answers 401 to a write without the token or with the generated one, and changes nothing', async () => {
    const before = await redisSnapshot();
    const response = await fetch(`${guarded.url}/queues/api/queues/${QUEUE_NAMES.prompts}/pause`, { method: 'PUT' });
    expect(response.status).toBe(401);
    const wrong = await fetch(`${guarded.url}/queues/api/queues/${QUEUE_NAMES.prompts}/pause`, { method: 'PUT', headers: { authorization: `Bearer ${TOKEN}x` } });
    expect(wrong.status).toBe(401);
    const generated = await stack.fetch(`${guarded.url}/queues/api/queues/${QUEUE_NAMES.prompts}/pause`, { method: 'PUT' });
    expect(generated.status).toBe(401);
    expect(await redisSnapshot()).toEqual(before);
  });

  it('shows Bull Board writable and pauses and resumes a queue with the token', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const queues = await boardQueues(guarded.url, '', auth);
    for (const queue of queues) expect(queue.readOnlyMode, queue.name).toBe(false);
    const queue = stack.queue(QUEUE_NAMES.prompts);
    try {
      expect((await fetch(`${guarded.url}/queues/api/queues/${QUEUE_NAMES.prompts}/pause`, { method: 'PUT', headers: auth })).status).toBe(200);
      expect(await queue.isPaused()).toBe(true);
    } finally {
      expect((await fetch(`${guarded.url}/queues/api/queues/${QUEUE_NAMES.prompts}/resume`, { method: 'PUT', headers: auth })).status).toBe(200);
    }
    expect(await queue.isPaused()).toBe(false);
  });
});

describe('Bull Board shows failures without stack traces', () => {
  it('shows a failed job with its reason and no stack, though Redis holds one', async () => {
    const queue = stack.queue(QUEUE_NAMES.export);
    // A job that keeps its stack in Redis (as jobs added before stackTraceLimit: 0 did).
    await queue.add('window', { projectId: 'p' }, { jobId: 'failing-1', stackTraceLimit: 10 });
    const connection = createRedisConnection(process.env.REDIS_URL!, 'dashboard-read-only-worker');
    const worker = new Worker(
      QUEUE_NAMES.export,
      async () => {
        throw new Error('page 3 breaks the total invariant');
      },
      { connection, prefix: stack.prefix },
    );
    try {
      await until('the job to fail', async () => ((await queue.getJobState('failing-1')) === 'failed' ? true : undefined));
    } finally {
      await worker.close();
      await connection.quit();
    }
    const stored = await queue.getJob('failing-1');
    expect((stored?.stacktrace ?? []).join('\n')).toMatch(/\n\s+at /);

    const failed = await boardQueues(open.url, `?activeQueue=${QUEUE_NAMES.export}&status=failed`);
    const job = failed.find((q) => q.name === QUEUE_NAMES.export)?.jobs.find((j) => j.id === 'failing-1');
    expect(job?.failedReason).toBe('page 3 breaks the total invariant');
    expect(job?.stacktrace).toEqual([]);

    const single = await stack.fetch(`${open.url}/queues/api/queues/${QUEUE_NAMES.export}/failing-1`);
    const text = await single.text();
    expect(single.status).toBe(200);
    expect(text).toContain('page 3 breaks the total invariant');
    expect(text).not.toMatch(/\bat .*\.ts:\d+/);
    expect((JSON.parse(text) as { job: { stacktrace: string[] } }).job.stacktrace).toEqual([]);
  });

  it('adds no stack to its own errors, even under NODE_ENV=development', async () => {
    // A queue whose connection is closed: every Bull Board handler that reads it throws.
    const brokenRedis = createRedisConnection(process.env.REDIS_URL!, 'dashboard-read-only-broken');
    const broken = openQueue(QUEUE_NAMES.prompts, brokenRedis, stack.prefix);
    await broken.close();
    await brokenRedis.quit();
    const dashboard = await startDashboard({ runtime: { ...stack.source, queue: () => broken }, host: '127.0.0.1', port: 0, logger });
    const previous = process.env.NODE_ENV;
    process.env.NODE_ENV = 'development';
    try {
      const response = await stack.fetch(`${dashboard.url}/queues/api/queues/${QUEUE_NAMES.prompts}/waiting-1`);
      const body = (await response.json()) as Record<string, unknown>;
      expect(response.status).toBe(500);
      expect(body.details).toBeUndefined();
      expect(JSON.stringify(body)).not.toMatch(/\bat .*:\d+:\d+/);
    } finally {
      process.env.NODE_ENV = previous;
      await dashboard.close();
    }
  });
});
