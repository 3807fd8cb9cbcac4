import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSeededArchived } from '../../src/emulator/index.js';
import { PromptKeys } from '../../src/prompts/prompt-keys.js';
import { submitBatch, waitForBatch } from '../../src/prompts/index.js';
import { openPromptStack, type PromptStack } from '../support/prompts-stack.js';

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
    const status = await waitForBatch(redis, stack.config.queuePrefix, batch.batchId, { intervalMs: 50 });
    expect(status.done).toBe(2);
    for (const key of [keys.batch(batch.batchId), keys.batchCounts(batch.batchId), keys.batchPrompts(batch.batchId), ...batch.promptIds.map((id) => keys.prompt(id))]) {
      const ttl = await redis.ttl(key);
      expect(ttl).toBeGreaterThan(3000);
      expect(ttl).toBeLessThanOrEqual(3600);
    }
  });
});
