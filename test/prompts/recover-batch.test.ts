/**
 * Waiting for a recovery (`prompts recover --wait`): the recovery job may finish at any moment
 * between two of the waiter's looks at it. A job read while it still ran has no return value yet;
 * taken for the finished job it would say the ledger had nothing, and tell the user to submit the
 * file again (a second send of everything).
 */
import { Worker, type Job, type Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForRecovery } from '../../src/prompts/index.js';
import { addRecoverJob } from '../../src/prompts/prompt-jobs.js';
import { QUEUE_NAMES } from '../../src/queue/queue-names.js';
import { openPromptStack, type PromptStack } from '../support/prompts-stack.js';

let stack: PromptStack;

beforeAll(async () => {
  stack = await openPromptStack({ workers: false });
});

afterAll(async () => {
  await stack?.close();
});

/** The queue, except that the job finishes (with `value`) right after the waiter's first look at it. */
function finishingAfterFirstLook(queue: Queue, finish: () => Promise<void>): Queue {
  let looked = false;
  const look =
    <A extends unknown[], R>(read: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const seen = await read(...args);
      if (!looked) {
        looked = true;
        await finish();
      }
      return seen;
    };
  return new Proxy(queue, {
    get(target, prop, receiver) {
      if (prop === 'getJob') return look((id: string) => target.getJob(id));
      if (prop === 'getJobState') return look((id: string) => target.getJobState(id));
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}

describe('waiting for a recovery', () => {
  it('reads the return value of the finished job, even when the job finished between two looks', async () => {
    const batch = await stack.submit([{ projectId: 'recover-race', jobId: 'job-1', prompt: 'fix the quickstart' }]);
    const queue = stack.runtime.queue(QUEUE_NAMES.prompts);
    const jobId = await addRecoverJob(queue, batch.batchId);
    // A worker of its own takes the recovery job (and the batch's own job, queued before it).
    const worker = new Worker(QUEUE_NAMES.prompts, null, { connection: stack.runtime.redis, prefix: queue.opts.prefix, lockDuration: 60_000, autorun: false });
    try {
      const taken: Job[] = [];
      while (!taken.some((job) => job.id === jobId)) taken.push((await worker.getNextJob(`token-${taken.length}`))!);
      const recovery = taken.find((job) => job.id === jobId)!;
      const started = { batchId: batch.batchId, prompts: 1, laned: 1, adopted: 0, rebuilt: true };
      const racing = finishingAfterFirstLook(queue, async () => {
        await recovery.moveToCompleted(started, `token-${taken.indexOf(recovery)}`, false);
      });
      await expect(
        waitForRecovery({ redis: stack.runtime.redis, queue: racing, prefix: stack.config.queuePrefix }, { batchId: batch.batchId, inRedis: false, jobId }, { intervalMs: 20, signal: AbortSignal.timeout(10_000) }),
      ).resolves.toBeUndefined();
    } finally {
      await worker.close(true);
    }
  });
});
