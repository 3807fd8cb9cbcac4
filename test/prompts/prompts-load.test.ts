import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSeededArchived } from '../../src/emulator/index.js';
import { waitForBatch } from '../../src/prompts/index.js';
import { openPromptStack, promptsOver, type PromptStack } from '../support/prompts-stack.js';

const SEED = 11;
/** Far more than the worker's 4 slots: enough that a waiting prompt holding a slot could not finish. */
const PROMPTS = 300;
let stack: PromptStack;

beforeAll(async () => {
  stack = await openPromptStack({
    emulator: { seed: SEED, agentTimeMs: 200, jobsPerProject: 300 },
    env: { MINTPIPE_PROMPT_CONCURRENCY: '4', MINTPIPE_POLL_INITIAL: '300ms', MINTPIPE_POLL_MAX: '1s' },
  });
});

afterAll(async () => {
  await stack?.close();
});

describe('three hundred prompts on one worker with concurrency 4', () => {
  it('all finish: waiting prompts are delayed jobs that hold no worker slot', async () => {
    const prompts = promptsOver('load', PROMPTS, 1);
    const startedAt = Date.now();
    const batch = await stack.submit(prompts);
    let mostPolling = 0;
    const status = await waitForBatch(stack.runtime.redis, stack.config.queuePrefix, batch.batchId, {
      intervalMs: 100,
      // Speed is the benchmark's to judge: this only bounds a hang.
      signal: AbortSignal.timeout(150_000),
      onProgress: (s) => {
        mostPolling = Math.max(mostPolling, s.byStatus.polling);
      },
    });
    const elapsedMs = Date.now() - startedAt;

    const archived = prompts.filter((p) => isSeededArchived(SEED, p.projectId, p.jobId)).length;
    expect(status.done).toBe(PROMPTS);
    expect(status.byStatus.rejected).toBe(archived);
    expect(status.byStatus.completed + status.byStatus.failed).toBe(PROMPTS - archived);
    expect(stack.emulator.messages).toHaveLength(PROMPTS - archived);
    // Far more prompts were waiting on their agent jobs at once than there are worker slots.
    expect(mostPolling).toBeGreaterThan(100);
    const rows = await stack.outcomes(batch.batchId);
    expect(rows.filter((r) => r.finished_at !== null)).toHaveLength(PROMPTS);
    console.log(`${PROMPTS} prompts in ${elapsedMs} ms; at most ${mostPolling} polling at once`);
  }, 180_000);
});
