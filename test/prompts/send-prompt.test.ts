/**
 * The send step on real parts (emulator, Redis, the embedded warehouse), called directly: only a
 * lane's head sends; a message goes only to a job that is neither active nor archived (or one the
 * prompt ahead just saw end); the ledger records `sending` before the one POST; and the POST's
 * failure decides between queued again, rejected and ambiguous.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MintlifyClient } from '../../src/api/index.js';
import type { Fault } from '../../src/emulator/faults.js';
import type { PromptContext } from '../../src/prompts/prompt-context.js';
import type { PromptRecord } from '../../src/prompts/prompt-record.js';
import { sendStep } from '../../src/prompts/send-prompt.js';
import { StepScope } from '../../src/prompts/step-scope.js';
import { freePort } from '../support/ports.js';
import { openPromptStack, promptContextOf, type PromptStack } from '../support/prompts-stack.js';
import { TEST_API_KEY } from '../support/test-env.js';
import { until } from '../support/wait.js';

let stack: PromptStack;
let ctx: PromptContext;

beforeAll(async () => {
  // Runs last a minute: a job set active stays active while a test looks at it.
  stack = await openPromptStack({ workers: false, emulator: { agentTimeMs: 60_000 } });
  ctx = promptContextOf(stack);
});

afterAll(async () => {
  await stack?.close();
});

/** `count` prompts to one agent job of a fresh project, in their lane, in order. */
async function lane(projectId: string, count = 1, jobId = 'job-1'): Promise<PromptRecord[]> {
  const { batchId } = await stack.submit(Array.from({ length: count }, (_, i) => ({ projectId, jobId, prompt: `${projectId} prompt ${i + 1}` })));
  const records = (await stack.store.readMany(await stack.store.batchPromptIds(batchId))).filter((r): r is PromptRecord => r !== undefined);
  records.sort((a, b) => a.position - b.position);
  await stack.store.enterLanes(records);
  // Seeded jobs come in every state: this one starts idle and open.
  stack.emulator.control.setJob(projectId, jobId, { status: 'completed', archivedAt: null });
  return records;
}

async function send(record: PromptRecord) {
  const scope = new StepScope(ctx, record);
  const outcome = await scope.runAndWrite(() => sendStep(scope, record));
  return { outcome, record: (await stack.store.read(record.promptId))! };
}

function messagesTo(projectId: string): number {
  return stack.emulator.messages.filter((m) => m.projectId === projectId).length;
}

describe('who sends', () => {
  it('sends only the head of its lane: a prompt behind it waits and posts nothing', async () => {
    const [, second] = await lane('send-order', 2);
    const { outcome, record } = await send(second!);
    expect(outcome).toMatchObject({ kind: 'wait', reason: 'not the head of its lane' });
    expect(record.status).toBe('queued');
    expect(messagesTo('send-order')).toBe(0);
  });
});

describe('the check before a message', () => {
  it('does not message an active agent job: it waits and stays queued', async () => {
    const [head] = await lane('send-active');
    stack.emulator.control.setJob('send-active', 'job-1', { status: 'active' });
    const { outcome, record } = await send(head!);
    expect(outcome.kind).toBe('wait');
    expect(record.status).toBe('queued');
    expect(record.waitingSinceMs).toBeTypeOf('number');
    expect(messagesTo('send-active')).toBe(0);
  });

  it('rejects a message to an archived agent job without posting', async () => {
    const [head] = await lane('send-archived');
    stack.emulator.control.archive('send-archived', 'job-1');
    const { outcome, record } = await send(head!);
    expect(outcome).toEqual({ kind: 'finished', status: 'rejected' });
    expect(record.error).toBe('not sent: the agent job is archived');
    expect(messagesTo('send-archived')).toBe(0);
  });

  it('rejects a message to a job whose status is archived even when it gives no archivedAt (the spec promises no field)', async () => {
    const [head] = await lane('send-archived-bare');
    stack.emulator.control.setJob('send-archived-bare', 'job-1', { status: 'archived', archivedAt: null });
    const { outcome, record } = await send(head!);
    expect(outcome).toEqual({ kind: 'finished', status: 'rejected' });
    expect(record.error).toBe('not sent: the agent job is archived');
    expect(messagesTo('send-archived-bare')).toBe(0);
  });

  it('takes the look of the prompt ahead, within a second, for its own: no GET before the POST', async () => {
    const [head] = await lane('send-fresh');
    const fresh = { ...head!, before: { status: 'completed', prLink: null }, checkedAtMs: ctx.now() } as PromptRecord;
    const gets = stack.emulator.counters.snapshot().jobRequests;
    const { record } = await send(fresh);
    expect(stack.emulator.counters.snapshot().jobRequests).toBe(gets);
    expect(record.status).toBe('polling');
    expect(messagesTo('send-fresh')).toBe(1);
  });

  it('looks at the job itself when the fresh look of the prompt ahead saw it active or archived', async () => {
    for (const status of ['active', 'archived'] as const) {
      const [head] = await lane(`send-fresh-${status}`);
      const look = { ...head!, before: { status, prLink: null }, checkedAtMs: ctx.now() } as PromptRecord;
      const gets = stack.emulator.counters.snapshot().jobRequests;
      await send(look);
      expect(stack.emulator.counters.snapshot().jobRequests).toBe(gets + 1);
    }
  });

  it('looks at the job itself when the look of the prompt ahead is older than a second', async () => {
    const [head] = await lane('send-stale');
    const stale = { ...head!, before: { status: 'completed', prLink: null }, checkedAtMs: ctx.now() - 1500 } as PromptRecord;
    const gets = stack.emulator.counters.snapshot().jobRequests;
    await send(stale);
    expect(stack.emulator.counters.snapshot().jobRequests).toBe(gets + 1);
  });
});

describe('the send', () => {
  it('posts once to an idle job, after the ledger recorded the prompt as sending, and polls next', async () => {
    const [head] = await lane('send-ok');
    const { outcome, record } = await send(head!);
    expect(outcome).toMatchObject({ kind: 'wait', reason: 'sent; first poll' });
    expect(record).toMatchObject({ status: 'polling', jobId: 'job-1' });
    expect(record.before?.status).toBeDefined();
    expect(messagesTo('send-ok')).toBe(1);
  });

  it('has the ledger record the prompt as sending while its POST is in flight', async () => {
    const [head] = await lane('send-ledger');
    stack.emulator.control.script('message', [{ kind: 'delay', ms: 1500, when: 'before' }]);
    const sent = send(head!);
    await until('the POST held by the emulator', async () => (stack.emulator.control.pendingFaults('message') === 0 ? true : undefined), 10_000, 10);
    const statuses = (await stack.rows(`SELECT status FROM mintpipe.prompt_events WHERE prompt_id = '${head!.promptId}'`)).map((r) => r.status);
    expect(statuses).toContain('sending');
    expect((await sent).record.status).toBe('polling');
  });

  it("takes a 200 with nothing in its body as sent (the spec requires no field): the prompt polls the job it was sent to", async () => {
    const [head] = await lane('send-bare-answer');
    stack.emulator.control.script('message', [{ kind: 'body', body: {} }]);
    const { outcome, record } = await send(head!);
    expect(outcome).toMatchObject({ kind: 'wait', reason: 'sent; first poll' });
    expect(record).toMatchObject({ status: 'polling', jobId: 'job-1', observedActive: false, lastStatus: undefined, error: undefined });
    expect(messagesTo('send-bare-answer')).toBe(1);
  });

  const failures: Array<[string, Fault, string]> = [
    ['a 429 proves it was not taken: queued again', { kind: 'rateLimit', retryAfterSeconds: 1 }, 'queued'],
    ['a 400 is rejected', { kind: 'status', status: 400 }, 'rejected'],
    ['a 500 may have been taken: ambiguous, never resent', { kind: 'status', status: 500 }, 'ambiguous'],
  ];
  it('puts a prompt whose POST never reached the server (no connection was made) back to queued, a failed attempt to try again', async () => {
    const [head] = await lane('send-unconnected');
    // The look of the prompt ahead spares the GET: the POST is the first request, to a port nobody listens on.
    const fresh = { ...head!, before: { status: 'completed', prLink: null }, checkedAtMs: ctx.now() } as PromptRecord;
    const unreachable = new MintlifyClient({ baseUrl: `http://127.0.0.1:${await freePort()}`, apiKey: TEST_API_KEY });
    const scope = new StepScope({ ...ctx, client: unreachable }, fresh);
    const outcome = await scope.runAndWrite(() => sendStep(scope, fresh));
    expect(outcome).toMatchObject({ kind: 'wait', reason: 'check failed' });
    expect(await stack.store.read(head!.promptId)).toMatchObject({ status: 'queued', failures: 1, sentAtMs: undefined });
  });

  for (const [what, fault, status] of failures) {
    it(`decides by the POST's failure: ${what}`, async () => {
      const projectId = `send-fail-${status}`;
      const [head] = await lane(projectId);
      stack.emulator.control.script('message', [fault]);
      const { record } = await send(head!);
      expect(record.status).toBe(status);
      expect(stack.emulator.control.pendingFaults('message')).toBe(0);
    });
  }
});

describe('a send answered 429', () => {
  it("pauses the project's message budget for its Retry-After: another prompt of the project posts nothing meanwhile", async () => {
    const [first] = await lane('send-429-pause', 1, 'job-1');
    const [second] = await lane('send-429-pause', 1, 'job-2');
    const retryAfterSeconds = 600;
    stack.emulator.control.script('message', [{ kind: 'rateLimit', retryAfterSeconds }]);
    expect((await send(first!)).record.status).toBe('queued');
    expect((await ctx.budget('send-429-pause', 'message').usage()).pausedForMs).toBeGreaterThan((retryAfterSeconds - 60) * 1000);
    const { outcome, record } = await send(second!);
    expect(outcome).toMatchObject({ kind: 'wait', reason: 'message budget spent' });
    expect(outcome.kind === 'wait' ? outcome.delayMs : 0).toBeGreaterThan((retryAfterSeconds - 60) * 1000);
    expect(record.status).toBe('queued');
    expect(messagesTo('send-429-pause')).toBe(0);
  });
});
