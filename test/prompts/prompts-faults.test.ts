import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSeededArchived } from '../../src/emulator/index.js';
import { openPromptStack, promptsOver, type PromptStack } from '../support/prompts-stack.js';

const SEED = 7;
let stack: PromptStack;

beforeAll(async () => {
  stack = await openPromptStack({
    emulator: {
      seed: SEED,
      agentTimeMs: 80,
      // A quarter of all requests fail: 5xx and resets half before, half after processing.
      faults: { serverErrorRate: 0.12, rateLimitRate: 0.05, resetRate: 0.05, malformedRate: 0.03, afterProcessingRate: 0.5 },
      retryAfterSeconds: 1,
    },
  });
});

afterAll(async () => {
  await stack?.close();
});

describe('a batch under 5xx, 429, reset and malformed-body faults', () => {
  it('sends no prompt twice, loses none, never messages an active job, and keeps each job in order', async () => {
    const prompts = promptsOver('faulty', 15, 3);
    const batch = await stack.submit(prompts);
    const status = await stack.finish(batch.batchId, 45_000);
    expect(status.done).toBe(prompts.length);

    const counts = new Map<string, number>();
    for (const m of stack.emulator.messages) counts.set(m.prompt, (counts.get(m.prompt) ?? 0) + 1);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(stack.emulator.messages.filter((m) => m.statusBefore === 'active')).toEqual([]);

    for (const p of status.prompts!) {
      const text = prompts[p.position]!.prompt;
      const times = counts.get(text) ?? 0;
      if (p.status === 'completed' || p.status === 'failed') expect(times, `${p.status} prompt ${text}`).toBe(1);
      else if (p.status === 'rejected') expect(isSeededArchived(SEED, 'faulty', p.jobId) || /not sent/.test(p.error ?? '')).toBe(true);
      else expect(p.status, `${text}: ${p.error}`).toBe('ambiguous');
      if (p.status === 'ambiguous') expect(p.error).toMatch(/not resent/);
    }

    for (const [key, messages] of stack.messagesByJob()) {
      const expected = prompts.filter((p) => `${p.projectId}/${p.jobId}` === key).map((p) => p.prompt);
      const got = messages.map((m) => m.prompt);
      expect(got).toEqual(expected.filter((text) => got.includes(text)));
    }

    // The faults did strike the sends: some were refused with 429 and some outcomes are unknown.
    const message = stack.emulator.counters.routes.message;
    expect((message.statuses[429] ?? 0) + (message.statuses[500] ?? 0) + (message.statuses[502] ?? 0) + message.resets).toBeGreaterThan(0);
    expect(status.byStatus.ambiguous).toBeGreaterThan(0);
    expect(status.byStatus.completed + status.byStatus.failed).toBeGreaterThan(prompts.length / 3);

    const rows = await stack.outcomes(batch.batchId);
    expect(new Map(rows.map((r) => [String(r.prompt_id), r.status]))).toEqual(new Map(status.prompts!.map((p) => [p.promptId, p.status])));
  });
});
