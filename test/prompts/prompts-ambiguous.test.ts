import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSeededArchived } from '../../src/emulator/index.js';
import { openPromptStack, type PromptStack } from '../support/prompts-stack.js';

const SEED = 42;
let stack: PromptStack;

beforeAll(async () => {
  // Answers slower than 400 ms count as timed out (every check and poll here answers at once).
  stack = await openPromptStack({ emulator: { seed: SEED, agentTimeMs: 60 }, env: { MINTPIPE_HTTP_TIMEOUT: '400ms' } });
});

afterAll(async () => {
  await stack?.close();
});

function liveJob(project: string): string {
  for (let n = 1; ; n++) if (!isSeededArchived(SEED, project, `job-${n}`)) return `job-${n}`;
}

/** POSTs that reached the message or create route for `project` since `before` (answered or not). */
function postsTo(route: 'message' | 'create', before: number): number {
  return stack.emulator.counters.routes[route].requests - before;
}

describe('a send whose outcome the client cannot know, through the prompt queue', () => {
  it('ends ambiguous with exactly one POST when the answer comes after the timeout, and is not sent again', async () => {
    const jobId = liveJob('slow-answer');
    const before = stack.emulator.counters.routes.message.requests;
    // Processed at once, answered after 1.5 s: the client gives up at 400 ms.
    stack.emulator.control.script('message', [{ kind: 'delay', ms: 1500, when: 'after' }]);
    const batch = await stack.submit([
      { projectId: 'slow-answer', jobId, prompt: 'timed out' },
      { projectId: 'slow-answer', jobId, prompt: 'the next one' },
    ]);
    const [timedOut, next] = (await stack.finish(batch.batchId)).prompts!;
    expect(timedOut).toMatchObject({ status: 'ambiguous', done: true });
    expect(timedOut!.error).toMatch(/may have been received \(TimeoutError.*not resent.*observed: the agent job ran/);
    expect(stack.emulator.messages.filter((m) => m.prompt === 'timed out')).toHaveLength(1);
    // Two prompts, two POSTs: the timed-out one was not posted again, and the lane went on.
    expect(postsTo('message', before)).toBe(2);
    expect(['completed', 'failed']).toContain(next!.status);
    const [row] = (await stack.outcomes(batch.batchId)).filter((r) => r.prompt_id === timedOut!.promptId);
    expect(row).toMatchObject({ status: 'ambiguous' });
  });

  it('ends ambiguous with exactly one POST when a 200 answer has a malformed body', async () => {
    const jobId = liveJob('malformed');
    const before = stack.emulator.counters.routes.message.requests;
    stack.emulator.control.script('message', [{ kind: 'malformed' }]);
    const batch = await stack.submit([{ projectId: 'malformed', jobId, prompt: 'garbled answer' }]);
    const [p] = (await stack.finish(batch.batchId)).prompts!;
    expect(p).toMatchObject({ status: 'ambiguous', done: true });
    expect(p!.error).toMatch(/may have been received \(InvalidResponseError.*not resent/);
    expect(postsTo('message', before)).toBe(1);
    expect(stack.emulator.messages.filter((m) => m.prompt === 'garbled answer')).toHaveLength(1);
  });

  it('ends a create ambiguous with exactly one POST when its answer comes after the timeout, holding its chain', async () => {
    const before = stack.emulator.counters.routes.create.requests;
    stack.emulator.control.script('create', [{ kind: 'delay', ms: 1500, when: 'after' }]);
    const batch = await stack.submit(
      [
        { projectId: 'slow-create', chain: 'c', prompt: 'create me' },
        { projectId: 'slow-create', chain: 'c', prompt: 'then this' },
      ],
      { allowCreate: true },
    );
    const status = await stack.finish(batch.batchId);
    expect(status.prompts!.map((p) => [p.status, p.held])).toEqual([
      ['ambiguous', false],
      ['queued', true],
    ]);
    expect(status.prompts![0]!.error).toMatch(/the create may have been performed \(TimeoutError/);
    expect(postsTo('create', before)).toBe(1);
    expect(stack.emulator.creates.filter((c) => c.prompt === 'create me')).toHaveLength(1);
    expect(stack.emulator.messages.filter((m) => m.projectId === 'slow-create')).toEqual([]);
  });
});
