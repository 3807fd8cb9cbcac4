/**
 * The spec: a message is processed asynchronously, so right after the POST (and in its answer) an
 * agent job may still show its previous outcome. A prompt must not take that old outcome for its
 * own, however quickly its polls come: only a change (the job seen active, a new status or link)
 * or the same status on several polls spread over MINTPIPE_POLL_SETTLE settles it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSeededArchived } from '../../src/emulator/index.js';
import { openPromptStack, type PromptStack } from '../support/prompts-stack.js';

const SEED = 42;
let stack: PromptStack;

beforeAll(async () => {
  // Each message waits 600 ms before its run (of 300 ms) starts; polls come every 50–100 ms.
  stack = await openPromptStack({
    emulator: { seed: SEED, agentTimeMs: 300, pickupDelayMs: 600 },
    env: { MINTPIPE_POLL_INITIAL: '100ms', MINTPIPE_POLL_MAX: '1s', MINTPIPE_POLL_SETTLE: '2s' },
  });
});

afterAll(async () => {
  await stack?.close();
});

describe('a message the server picks up late', () => {
  it('is not settled on the outcome the job showed before it: the next prompt waits for the real run to end', async () => {
    const project = 'late-pickup';
    const jobs: string[] = [];
    for (let n = 1; jobs.length < 2; n++) if (!isSeededArchived(SEED, project, `job-${n}`)) jobs.push(`job-${n}`);
    const prompts = [1, 2].flatMap((round) => jobs.map((jobId) => ({ projectId: project, jobId, prompt: `${jobId} round ${round}` })));
    const batch = await stack.submit(prompts);
    const status = await stack.finish(batch.batchId, 20_000);

    expect(status.done).toBe(4);
    for (const jobId of jobs) {
      const messages = stack.messagesByJob().get(`${project}/${jobId}`)!;
      expect(messages.map((m) => m.prompt)).toEqual([`${jobId} round 1`, `${jobId} round 2`]);
      // Never sent while the first message waited for pickup or ran.
      expect(messages.map((m) => m.statusBefore)).not.toContain('active');
      expect(messages[1]!.receivedAt).toBeGreaterThanOrEqual(messages[0]!.receivedAt + 600 + messages[0]!.runMs);
    }
    // Every prompt ended with its own run's outcome: the first round's is what the job showed when
    // the second message came, the second round's is what it shows now.
    const byPrompt = new Map(status.prompts!.map((p) => [prompts[p.position]!.prompt, p.status]));
    for (const jobId of jobs) {
      const messages = stack.messagesByJob().get(`${project}/${jobId}`)!;
      expect(byPrompt.get(`${jobId} round 1`)).toBe(messages[1]!.statusBefore);
      expect(byPrompt.get(`${jobId} round 2`)).toBe(stack.emulator.control.getJob(project, jobId)!.status);
    }
  });
});
