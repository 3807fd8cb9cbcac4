/**
 * The poll step on real parts (emulator, Redis, the embedded warehouse), called directly on a
 * prompt that was sent: a terminal status is the outcome of this send only with evidence that
 * the job moved (seen active, or changed from its state before the send), or after enough
 * unchanged polls and time; the deadline ends it; an ambiguous send is observed, not trusted.
 * The clock is the context's `now`, set by each test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentJobPatch } from '../../src/emulator/index.js';
import { pollStep } from '../../src/prompts/poll-agent-job.js';
import type { PromptContext } from '../../src/prompts/prompt-context.js';
import type { PromptRecord } from '../../src/prompts/prompt-record.js';
import { sendStep } from '../../src/prompts/send-prompt.js';
import { StepScope } from '../../src/prompts/step-scope.js';
import { openPromptStack, promptContextOf, type PromptStack } from '../support/prompts-stack.js';

let stack: PromptStack;
let ctx: PromptContext;

beforeAll(async () => {
  // Runs last a minute: a job stays as a test set it.
  stack = await openPromptStack({ workers: false, emulator: { agentTimeMs: 60_000 } });
  ctx = promptContextOf(stack);
});

afterAll(async () => {
  await stack?.close();
});

/**
 * A prompt to `projectId`'s job-1, sent (polling; ambiguous when the POST answers 500), the job
 * completed with `prLink` before the send.
 */
async function sent(projectId: string, prLink: string | null = null, status: 'polling' | 'ambiguous' = 'polling'): Promise<PromptRecord> {
  const { batchId } = await stack.submit([{ projectId, jobId: 'job-1', prompt: `${projectId} prompt` }]);
  const [record] = (await stack.store.readMany(await stack.store.batchPromptIds(batchId))) as PromptRecord[];
  await stack.store.enterLanes([record!]);
  stack.emulator.control.setJob(projectId, 'job-1', { status: 'completed', prLink, archivedAt: null });
  if (status === 'ambiguous') stack.emulator.control.script('message', [{ kind: 'status', status: 500 }]);
  const scope = new StepScope(ctx, record!);
  await scope.runAndWrite(() => sendStep(scope, record!));
  const after = (await stack.store.read(record!.promptId))!;
  expect(after.status).toBe(status);
  return after;
}

/** One poll at `atMs` after the send; the record as Redis holds it afterwards. */
async function pollAt(record: PromptRecord, atMs: number) {
  const at = { ...ctx, now: () => record.sentAtMs! + atMs };
  const scope = new StepScope(at, record);
  const outcome = await scope.runAndWrite(() => pollStep(scope, record));
  return { outcome, record: (await stack.store.read(record.promptId))! };
}

function setJob(projectId: string, patch: AgentJobPatch): void {
  stack.emulator.control.setJob(projectId, 'job-1', patch);
}

describe('a terminal status with evidence that the job moved', () => {
  it('keeps polling while the job is active, then ends with the status it shows once it ended, even one the same as before the send', async () => {
    const record = await sent('poll-active');
    setJob('poll-active', { status: 'active' });
    const first = await pollAt({ ...record, observedActive: false }, 50);
    expect(first.outcome.kind).toBe('wait');
    expect(first.record).toMatchObject({ status: 'polling', polls: 1, observedActive: true, lastStatus: 'active' });
    setJob('poll-active', { status: 'completed', prLink: null });
    const second = await pollAt(first.record, 100);
    expect(second.outcome).toEqual({ kind: 'finished', status: 'completed' });
    expect(second.record.polls).toBe(2);
  });

  it('takes a status or link other than before the send as this run\'s outcome on the first poll', async () => {
    const record = await sent('poll-changed', 'https://example.test/pr/1');
    setJob('poll-changed', { status: 'completed', prLink: 'https://example.test/pr/2' });
    const { outcome, record: after } = await pollAt({ ...record, observedActive: false }, 10);
    expect(outcome).toEqual({ kind: 'finished', status: 'completed' });
    expect(after.prLink).toBe('https://example.test/pr/2');
  });
});

describe('the same terminal status as before the send', () => {
  it('settles only after unchangedPollsToSettle polls and settleMs since the send, never sooner', async () => {
    const record = await sent('poll-unchanged', 'https://example.test/pr/1');
    setJob('poll-unchanged', { status: 'completed', prLink: 'https://example.test/pr/1' });
    const quiet = { ...record, observedActive: false };
    const { unchangedPollsToSettle, settleMs } = ctx.timing;
    expect((await pollAt({ ...quiet, polls: unchangedPollsToSettle - 2 }, settleMs)).outcome.kind).toBe('wait');
    expect((await pollAt({ ...quiet, polls: unchangedPollsToSettle - 1 }, settleMs - 1)).outcome.kind).toBe('wait');
    const settled = await pollAt({ ...quiet, polls: unchangedPollsToSettle - 1 }, settleMs);
    expect(settled.outcome).toEqual({ kind: 'finished', status: 'completed' });
    // No sign the message was processed: the job's pull request is its earlier work, not this prompt's.
    expect(settled.record).toMatchObject({ status: 'completed', prLink: null, lastStatus: 'completed' });
  });

  it("keeps a created job's pull request when it settles: a new job has no earlier work", async () => {
    const record = await sent('poll-created', 'https://example.test/pr/7');
    setJob('poll-created', { status: 'completed', prLink: 'https://example.test/pr/7' });
    const { unchangedPollsToSettle, settleMs } = ctx.timing;
    const created = { ...record, kind: 'create' as const, before: undefined, observedActive: false, polls: unchangedPollsToSettle - 1 };
    const settled = await pollAt(created, settleMs);
    expect(settled.outcome).toEqual({ kind: 'finished', status: 'completed' });
    expect(settled.record.prLink).toBe('https://example.test/pr/7');
  });
});

describe('the deadline', () => {
  it('ends a prompt whose job is still active at the deadline as timed out, naming the last status seen', async () => {
    const record = await sent('poll-deadline');
    setJob('poll-deadline', { status: 'active' });
    const before = await pollAt(record, ctx.timing.deadlineMs - 1);
    expect(before.outcome.kind).toBe('wait');
    // The next poll never falls past the deadline.
    expect(before.outcome).toMatchObject({ delayMs: 1 });
    const { outcome, record: after } = await pollAt(before.record, ctx.timing.deadlineMs);
    expect(outcome).toEqual({ kind: 'finished', status: 'timed_out' });
    expect(after.error).toMatch(/^no outcome within the deadline \(.*\): last seen active$/);
  });
});

describe('a failed poll', () => {
  it('is just a later poll: the prompt keeps polling with the failure in its error', async () => {
    const record = await sent('poll-failed');
    stack.emulator.control.script('job', Array.from({ length: 10 }, () => ({ kind: 'status', status: 500 }) as const));
    const { outcome, record: after } = await pollAt(record, 10);
    stack.emulator.control.clearScript();
    expect(outcome.kind).toBe('wait');
    expect(after).toMatchObject({ status: 'polling', polls: 1 });
    expect(after.error).toMatch(/^last poll failed: /);
  });
});

describe('an ambiguous send', () => {
  it('ends ambiguous with what was observed, and without the job\'s earlier pull request when the job never moved', async () => {
    const record = await sent('poll-ambiguous', 'https://example.test/pr/old', 'ambiguous');
    const quiet = { ...record, observedActive: false, polls: 5 };
    const { outcome, record: after } = await pollAt(quiet, ctx.timing.settleMs);
    expect(outcome).toEqual({ kind: 'finished', status: 'ambiguous' });
    expect(after.prLink).toBeNull();
    expect(after.error).toMatch(/^the send may have been received \(.*\); not resent; observed: no sign the message was processed \(the agent job stayed completed\)$/);
  });

  it('ends ambiguous as having run when the job was seen active, with its pull request', async () => {
    const record = await sent('poll-ambiguous-ran', null, 'ambiguous');
    setJob('poll-ambiguous-ran', { status: 'completed', prLink: 'https://example.test/pr/new' });
    const { outcome, record: after } = await pollAt({ ...record, observedActive: true }, 10);
    expect(outcome).toEqual({ kind: 'finished', status: 'ambiguous' });
    expect(after.prLink).toBe('https://example.test/pr/new');
    expect(after.error).toMatch(/; observed: the agent job ran and ended completed$/);
  });
});

describe('a poll refused with 429', () => {
  it('waits at least its Retry-After before the next poll, however soon the pace would look, and keeps polling', async () => {
    const record = await sent('poll-limited');
    const retryAfterSeconds = 900;
    stack.emulator.control.script('job', Array.from({ length: 5 }, () => ({ kind: 'rateLimit', retryAfterSeconds }) as const));
    try {
      const { outcome, record: after } = await pollAt(record, 10);
      expect(outcome.kind === 'wait' ? outcome.delayMs : 0).toBeGreaterThanOrEqual(retryAfterSeconds * 1000);
      expect(after).toMatchObject({ status: 'polling', polls: 1 });
    } finally {
      stack.emulator.control.clearScript();
    }
  });
});
