/**
 * A prompt job's crashes (its worker died: BullMQ found it stalled) and failures spend one budget,
 * its attempts. A prompt job that starts with that budget spent ends its prompt with what is known,
 * and the batch's status and the ledger say why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptJobId } from '../../src/prompts/prompt-jobs.js';
import { queueKeyPrefix, QUEUE_NAMES } from '../../src/queue/queues.js';
import { openPromptStack, promptsOver, type PromptStack } from '../support/prompts-stack.js';
import { until } from '../support/wait.js';

let stack: PromptStack;
beforeAll(async () => {
  // Agent jobs that keep running, so the prompt stays `polling` while the test intervenes.
  stack = await openPromptStack({ emulator: { agentTimeMs: 600_000 } });
});
afterAll(() => stack?.close());

describe('crash limits of prompt jobs', () => {
  it('ends a polling prompt whose job crashed as often as its attempts as timed_out, saying so in status and the ledger', async () => {
    const queue = stack.runtime.queue(QUEUE_NAMES.prompts);
    const batch = await stack.submit(promptsOver('crashy-prompts', 1, 1));
    const promptId = batch.promptIds[0]!;
    const record = await until('the prompt to be sent and polled', async () => {
      const r = await stack.store.read(promptId);
      return r?.status === 'polling' ? r : undefined;
    });
    const jobId = promptJobId(promptId, record.attempt);
    const job = await until('its job to wait for its next poll', async () => ((await queue.getJobState(jobId)) === 'delayed' ? queue.getJob(jobId) : undefined));
    // What that many crashes leave in Redis: the job's stall counter at its attempts.
    await stack.runtime.redis.hset(`${queueKeyPrefix(stack.config.queuePrefix)}:${QUEUE_NAMES.prompts}:${jobId}`, 'stc', job!.opts.attempts ?? 1);
    // Run it now if it still waits; a poll that fell due meanwhile runs it anyway, and its next run sees the counter.
    await job!.promote().catch((err: unknown) => {
      if (!/is not in the delayed state/.test(String(err))) throw err;
    });

    await stack.finish(batch.batchId);
    const status = await stack.status(batch.batchId);
    const prompt = status.prompts?.find((p) => p.promptId === promptId);
    expect(prompt?.status).toBe('timed_out');
    expect(prompt?.error).toMatch(/^polling stopped: its worker stopped \(crashed or was killed\) \d+ time\(s\) .* attempts are spent$/);
    const [outcome] = await stack.outcomes(batch.batchId);
    expect({ status: outcome?.status, error: outcome?.error }).toEqual({ status: 'timed_out', error: prompt?.error });
    // Sent once, never again.
    expect(stack.messagesByJob().get('crashy-prompts/job-1')?.length).toBe(1);
  });
});
