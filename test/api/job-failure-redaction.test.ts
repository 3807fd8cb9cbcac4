import { randomBytes } from 'node:crypto';
import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthError } from '../../src/api/index.js';
import { registerSecret } from '../../src/logger.js';
import { toQueueError } from '../../jobs/job-control.js';
import { openQueue, QUEUE_NAMES } from '../../src/queue/queues.js';
import { keySpellings, revealsKey } from '../support/key-spellings.js';
import { until } from '../support/wait.js';

const KEY = 'mint_JobFailureSecret0123456789abcdefXYZ';
const ECHO = `upstream said: ${Object.values(keySpellings(KEY)).join(' | ')}`;

/** Signs that a stack trace was stored: frames, local paths, file names. */
const STACK_FRAME = /\n\s+at |node_modules|\/work\/|file:\/\/|\.ts:\d+/;

const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
const prefix = `t${randomBytes(4).toString('hex')}`;
const workers: Worker[] = [];
const connections: Redis[] = [];
const queues: Queue[] = [];

/** Runs one job on `queue` with a processor that throws `fail()`, and returns its hash as stored in Redis. */
async function failOneJob(queue: Queue, fail: () => never): Promise<Record<string, string>> {
  const connection = redis.duplicate();
  connections.push(connection);
  const worker = new Worker(queue.name, async (_job: Job) => fail(), { connection, prefix: queue.opts.prefix });
  workers.push(worker);
  const job = await queue.add('window', { projectId: 'p' }, { attempts: 1 });
  await until('the job to fail', async () => ((await queue.getJobState(job.id!)) === 'failed' ? true : undefined), 20_000);
  await worker.close();
  return redis.hgetall(`${queue.opts.prefix}:${queue.name}:${job.id}`);
}

beforeAll(() => registerSecret(KEY));
afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
  await Promise.all(queues.map(async (q) => (await q.obliterate({ force: true }), await q.close())));
  await Promise.all([...connections, redis].map((c) => c.quit()));
});

describe('a failed job in Redis', () => {
  it('keeps a redacted message and no stack frames when the processor throws what toQueueError made (also on a queue without defaults)', async () => {
    // A queue opened without mintpipe's job defaults, like jobs enqueued before them: only toQueueError protects it.
    const queue = new Queue(QUEUE_NAMES.export, { connection: redis, prefix });
    queues.push(queue);
    for (const original of [new AuthError({ op: 'getAnalytics', status: 401, serverMessage: ECHO }), new Error(ECHO)]) {
      const { error } = toQueueError(original);
      const stored = await failOneJob(queue, () => {
        throw error;
      });
      expect(stored.failedReason).toContain('[REDACTED]');
      expect(revealsKey(JSON.stringify(stored), KEY)).toBe(false);
      expect(JSON.parse(stored.stacktrace!)).toEqual([`${error.name}: ${error.message}`]);
      expect(JSON.stringify(stored)).not.toMatch(STACK_FRAME);
    }
  });

  it('keeps no stack trace at all on a queue opened by mintpipe, even for an error thrown past toQueueError', async () => {
    const queue = openQueue(QUEUE_NAMES.export, redis, `${prefix}m`);
    queues.push(queue);
    const stored = await failOneJob(queue, () => {
      throw new Error('a processor bug');
    });
    expect(stored.failedReason).toBe('a processor bug');
    expect(JSON.parse(stored.stacktrace!)).toEqual([]);
    expect(JSON.stringify(stored)).not.toMatch(STACK_FRAME);
  });
});
