import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_NAMES } from '../../src/queue/queues.js';
import { openPromptStack, type PromptStack } from '../support/prompts-stack.js';
import { until } from '../support/wait.js';

let stack: PromptStack;

beforeAll(async () => {
  stack = await openPromptStack();
});

afterAll(async () => {
  await stack?.close();
});

/** Jobs added straight to the prompts queue with BullMQ, as anyone with access to Redis could. */
const BOGUS = [
  { id: 'bogus-types', name: 'prompt', data: { batchId: 42, promptId: '0123456789abcdef0123', attempt: 0 }, reason: /bad "prompt" job data: batchId: .*expected string/ },
  { id: 'bogus-ids', name: 'prompt', data: { batchId: '../../etc', promptId: 'x', attempt: 0 }, reason: /batchId: expected a batch id \(16 hex digits\); promptId: expected a prompt id/ },
  { id: 'bogus-attempt', name: 'prompt', data: { batchId: '0123456789abcdef', promptId: '0123456789abcdef0123', attempt: -1 }, reason: /attempt: .*>=0/ },
  { id: 'bogus-extra', name: 'prompt', data: { batchId: '0123456789abcdef', promptId: '0123456789abcdef0123', attempt: 0, kind: 'bogus' }, reason: /data: unexpected field: "kind"/ },
  { id: 'bogus-missing', name: 'prompt', data: { kind: 'bogus', dateFrom: '1900-01-01' }, reason: /batchId: .*promptId: .*attempt: / },
  { id: 'bogus-null', name: 'batch', data: null, reason: /bad "batch" job data: data: / },
  { id: 'bogus-batch', name: 'batch', data: { batchId: 'NOT-A-BATCH' }, reason: /batchId: expected a batch id/ },
  { id: 'bogus-name', name: 'window', data: { projectId: 'p' }, reason: /unknown job name "window" \(expected "prompt" or "batch"\)/ },
];

describe('prompt jobs with bad data', () => {
  it('fail alone, for good, with a reason naming the field, and record nothing', async () => {
    const queue = stack.runtime.queue(QUEUE_NAMES.prompts);
    for (const job of BOGUS) await queue.add(job.name, job.data, { jobId: job.id, attempts: 8, backoff: { type: 'fixed', delay: 10 } });
    const good = await stack.submit([{ projectId: 'acme', jobId: 'job-1', prompt: 'a prompt with good data' }]);

    const final = await stack.finish(good.batchId);
    // Sent once and finished with what the agent job did (the emulator fails some runs on purpose).
    expect(final.done).toBe(1);
    const [prompt] = (await stack.status(good.batchId)).prompts ?? [];
    expect(prompt?.sentAt).toEqual(expect.any(String));
    await until('every bogus job to fail', async () => {
      const states = await Promise.all(BOGUS.map((b) => queue.getJobState(b.id)));
      return states.every((s) => s === 'failed') ? true : undefined;
    });

    for (const bogus of BOGUS) {
      const job = await queue.getJob(bogus.id);
      expect(job?.failedReason, bogus.id).toMatch(/^InvalidJobDataError: /);
      expect(job?.failedReason, bogus.id).toMatch(bogus.reason);
      expect(job?.failedReason).not.toContain('\n');
      // Unrecoverable: one attempt, though eight were allowed.
      expect(job?.attemptsMade, bogus.id).toBe(1);
    }

    // The warehouse and the prompt store hold the good batch only; one message went upstream.
    const batches = await stack.rows('SELECT DISTINCT batch_id FROM mintpipe.prompt_events ORDER BY batch_id');
    expect(batches).toEqual([{ batch_id: good.batchId }]);
    const storeKeys = await stack.runtime.redis.keys(`{${stack.config.queuePrefix}:prompts}:[pb]:*`);
    expect(storeKeys.length).toBeGreaterThan(0);
    for (const key of storeKeys) expect(key).toMatch(new RegExp(`:prompts\\}:(b:${good.batchId}|p:(${good.promptIds.join('|')}))(:|$)`));
    expect(await stack.runtime.redis.keys(`{${stack.config.queuePrefix}:prompts}:b:0123456789abcdef*`)).toEqual([]);
    expect(stack.emulator.messages).toHaveLength(1);
  });
});
