import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSeededArchived } from '../../src/emulator/index.js';
import { promptJobId } from '../../src/prompts/prompt-jobs.js';
import { PromptKeys } from '../../src/prompts/prompt-keys.js';
import { submitBatch, waitForBatch } from '../../src/prompts/index.js';
import { openPromptStack, type PromptStack } from '../support/prompts-stack.js';
import { until } from '../support/wait.js';

let stack: PromptStack;

beforeAll(async () => {
  stack = await openPromptStack({ emulator: { seed: 42, agentTimeMs: 50 }, env: { MINTPIPE_PROMPT_RETENTION: '1h' } });
});
afterAll(async () => {
  await stack?.close();
});

describe('prompt records in Redis', () => {
  it('expire after the retention period once every prompt of the batch is final, and not before', async () => {
    const jobs: string[] = [];
    for (let n = 1; jobs.length < 2; n++) if (!isSeededArchived(42, 'retention', `job-${n}`)) jobs.push(`job-${n}`);
    const redis = stack.runtime.redis;
    const keys = new PromptKeys(stack.config.queuePrefix);
    const batch = await submitBatch(
      { redis, queue: stack.runtime.queue('prompts'), prefix: stack.config.queuePrefix },
      jobs.map((jobId) => ({ projectId: 'retention', jobId, prompt: `retention check for ${jobId}` })),
    );
    expect(await redis.ttl(keys.batch(batch.batchId))).toBe(-1);
    // A batch created two hours ago, past the 1h retention: the next batch to finish drops it from the index.
    const stale = `stale-${batch.batchId}`;
    await redis.zadd(keys.batches(), Date.now() - 2 * 3_600_000, stale);
    const status = await waitForBatch(redis, stack.config.queuePrefix, batch.batchId, { intervalMs: 50 });
    expect(status.done).toBe(2);
    for (const key of [keys.batch(batch.batchId), keys.batchCounts(batch.batchId), keys.batchPrompts(batch.batchId), ...batch.promptIds.map((id) => keys.prompt(id))]) {
      const ttl = await redis.ttl(key);
      expect(ttl).toBeGreaterThan(3000);
      expect(ttl).toBeLessThanOrEqual(3600);
    }
    // The index of batches keeps the finished one for its retention, and only drops the stale one.
    expect(await redis.zscore(keys.batches(), batch.batchId)).not.toBeNull();
    expect(await redis.zscore(keys.batches(), stale)).toBeNull();
  });

  it("keeps a finished prompt's job in the queue as completed, for a week", async () => {
    const jobId = (() => {
      for (let n = 1; ; n++) if (!isSeededArchived(42, 'kept', `job-${n}`)) return `job-${n}`;
    })();
    const redis = stack.runtime.redis;
    const queue = stack.runtime.queue('prompts');
    const batch = await submitBatch({ redis, queue, prefix: stack.config.queuePrefix }, [{ projectId: 'kept', jobId, prompt: 'keep my job' }]);
    await waitForBatch(redis, stack.config.queuePrefix, batch.batchId, { intervalMs: 50 });
    const job = await until('the prompt job completed', async () => {
      const found = await queue.getJob(promptJobId(batch.promptIds[0]!, 0));
      return found && (await found.isCompleted()) ? found : undefined;
    }, 10_000);
    expect(job.opts.removeOnComplete).toEqual({ age: 7 * 86_400, count: 100_000 });
  });
});
