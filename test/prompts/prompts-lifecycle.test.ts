import { UnrecoverableError, Worker } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { batchJobId, promptJobId, runPromptStep, startBatch, type StepOutcome } from '../../src/prompts/index.js';
import { sendInThisRun } from '../../src/prompts/prompt-step.js';
import { queueKeyPrefix, QUEUE_NAMES } from '../../src/queue/queues.js';
import { openPromptStack, promptContextOf, promptsOver, type PromptStack } from '../support/prompts-stack.js';
import { until } from '../support/wait.js';

const stacks: PromptStack[] = [];
afterAll(async () => {
  for (const stack of stacks) await stack.close();
});

/** The batch job leaves every send to the prompts' own jobs, which these tests run step by step. */
const JOBS_SEND = { sendFirst: 0 };

/** The context a prompt job runs with, on the stack's real parts, for running steps by hand. */
function contextOf(stack: PromptStack) {
  return promptContextOf(stack, createLogger({ level: 'silent', pretty: false }));
}

async function open(...args: Parameters<typeof openPromptStack>): Promise<PromptStack> {
  const stack = await openPromptStack(...args);
  stacks.push(stack);
  return stack;
}

describe('a prompt whose send was interrupted', () => {
  it('is never posted again when its job starts and finds it sending: it becomes ambiguous and is observed', async () => {
    const stack = await open({ workers: false });
    const ctx = contextOf(stack);
    const batch = await stack.submit([{ projectId: 'crash', jobId: 'job-2', prompt: 'was it sent?' }]);
    await startBatch(ctx, { batchId: batch.batchId }, JOBS_SEND);
    const promptId = batch.promptIds[0]!;
    // As a worker that died right after claiming the send (before the POST) would have left it.
    const job = stack.emulator.control.getJob('crash', 'job-2')!;
    const claimedAt = Date.now();
    const claimed = await stack.store.transition(promptId, batch.batchId, {
      attempt: 0,
      from: ['queued'],
      to: 'sending',
      set: { sentAt: claimedAt, before: JSON.stringify({ status: job.status, prLink: job.prLink }) },
    });
    expect(claimed.ok).toBe(true);

    // Right after the claim, its run may still be waiting for the POST's answer: the job waits
    // until a send's longest time has passed since the claim, and decides nothing yet.
    const early = await runPromptStep(ctx, { batchId: batch.batchId, promptId, attempt: 0 });
    expect(early).toMatchObject({ kind: 'wait', reason: 'a send may still be in flight' });
    expect(early.kind === 'wait' && early.delayMs).toBeGreaterThan(ctx.timing.sendGuardMs - 5000);
    expect((await stack.store.read(promptId))!.status).toBe('sending');

    // Past that time (the job's clock moved on): nobody is waiting for an answer any more.
    const later = { ...ctx, now: () => claimedAt + ctx.timing.sendGuardMs + 1 };
    let outcome: StepOutcome = await runPromptStep(later, { batchId: batch.batchId, promptId, attempt: 0 });
    expect(outcome.kind).toBe('wait');
    expect((await stack.store.read(promptId))!.status).toBe('ambiguous');
    // Each next run comes when the step asked to be run again: the job's clock moves on by that
    // delay instead of the test sleeping it out (the agent job, never messaged, does not change).
    let clock = Date.now();
    const polling = { ...ctx, now: () => clock };
    for (let steps = 0; outcome.kind === 'wait' && steps < 50; steps++) {
      clock += outcome.kind === 'wait' ? outcome.delayMs : 0;
      outcome = await runPromptStep(polling, { batchId: batch.batchId, promptId, attempt: 0 });
    }
    expect(outcome).toEqual({ kind: 'finished', status: 'ambiguous' });
    const record = (await stack.store.read(promptId))!;
    expect(record.error).toMatch(/stopped while sending.*not resent.*no sign the message was processed/);
    expect(record.polls).toBeGreaterThanOrEqual(3);
    expect(stack.emulator.messages).toHaveLength(0);
    const rows = await stack.outcomes(batch.batchId);
    expect(rows).toMatchObject([{ status: 'ambiguous', polls: record.polls }]);
  });
});

describe('a send still in flight when Redis forgot its prompt', () => {
  it('leaves the prompt made again from the ledger alone: that one ends ambiguous through its own job, and nothing is posted twice', async () => {
    const stack = await open({ workers: false });
    const ctx = contextOf(stack);
    const rows = [{ projectId: 'forgot', jobId: 'job-4', prompt: 'in flight while Redis restarts' }];
    const batch = await stack.submit(rows);
    await startBatch(ctx, { batchId: batch.batchId }, JOBS_SEND);
    const promptId = batch.promptIds[0]!;
    // The message is processed at once and answered 3 s later: Redis forgets the prompt meanwhile.
    stack.emulator.control.script('message', [{ kind: 'delay', ms: 3000, when: 'after' }]);
    const inFlight = runPromptStep(ctx, { batchId: batch.batchId, promptId, attempt: 0 });
    await until('the message processed', async () => (stack.emulator.messages.length === 1 ? true : undefined));
    // As a restart without persistence: every key of this installation is gone. The file comes again.
    const redis = stack.runtime.redis;
    const keys = await redis.keys(`{${stack.config.queuePrefix}*`);
    expect(keys.length).toBeGreaterThan(0);
    await redis.del(...keys);
    expect((await stack.submit(rows)).batchId).toBe(batch.batchId);
    await startBatch(ctx, { batchId: batch.batchId }, JOBS_SEND);
    // Made again from the ledger's `sending` mark, without the claim of the run still in flight.
    expect((await stack.store.read(promptId))!.status).toBe('sending');

    // The answer comes: the old run does not take the new prompt for its own (it would leave it
    // `polling` with no job to poll it, and the batch would never end).
    expect(await inFlight).toEqual({ kind: 'skipped', reason: 'sent, but the record moved on: claim-lost' });
    expect((await stack.store.read(promptId))!.status).toBe('sending');
    // Its own job, once a send's longest time has passed since the claim the ledger recorded.
    const later = { ...ctx, now: () => Date.now() + ctx.timing.sendGuardMs };
    let outcome: StepOutcome = { kind: 'wait', delayMs: 0, reason: 'start' };
    for (let steps = 0; outcome.kind === 'wait' && steps < 50; steps++) {
      await new Promise((r) => setTimeout(r, outcome.kind === 'wait' ? outcome.delayMs : 0));
      outcome = await runPromptStep(later, { batchId: batch.batchId, promptId, attempt: 0 });
    }
    expect(outcome).toEqual({ kind: 'finished', status: 'ambiguous' });
    expect(stack.emulator.messages).toHaveLength(1);
  });
});

describe('an ambiguous prompt taken over without the job\'s state before its send (from the ledger)', () => {
  it('ends ambiguous without claiming the job ran, and is not credited with the pull request the job already had', async () => {
    const stack = await open({ workers: false });
    const ctx = contextOf(stack);
    const jobId = [...Array(60).keys()].map((n) => `job-${n + 1}`).find((id) => stack.emulator.control.getJob('taken', id)?.prLink && stack.emulator.control.getJob('taken', id)?.status !== 'archived')!;
    const batch = await stack.submit([{ projectId: 'taken', jobId, prompt: 'sent by a run Redis forgot' }]);
    await startBatch(ctx, { batchId: batch.batchId }, JOBS_SEND);
    const promptId = batch.promptIds[0]!;
    const moved = await stack.store.transition(promptId, batch.batchId, { attempt: 0, from: ['queued'], to: 'ambiguous', set: { sentAt: Date.now(), error: 'the ledger shows it was sent' } });
    expect(moved.ok).toBe(true);
    expect((await stack.store.read(promptId))!.before).toBeUndefined();

    let outcome: StepOutcome = { kind: 'wait', delayMs: 0, reason: 'start' };
    for (let steps = 0; outcome.kind === 'wait' && steps < 50; steps++) {
      await new Promise((r) => setTimeout(r, outcome.kind === 'wait' ? outcome.delayMs : 0));
      outcome = await runPromptStep(ctx, { batchId: batch.batchId, promptId, attempt: 0 });
    }
    expect(outcome).toEqual({ kind: 'finished', status: 'ambiguous' });
    const record = (await stack.store.read(promptId))!;
    expect(record.error).toMatch(/its state before the send is unknown: no sign the message was processed/);
    expect(record.prLink).toBeNull();
    expect(stack.emulator.messages).toHaveLength(0);
  });
});

describe('a chain whose stop was cut short', () => {
  it('writes the skipped steps to the warehouse when the stopped step runs again, though the dead run only skipped them in Redis', async () => {
    const stack = await open({ workers: false });
    const ctx = contextOf(stack);
    const batch = await stack.submit([
      { projectId: 'cut', jobId: 'job-1', prompt: 'first', chain: 'docs' },
      { projectId: 'cut', prompt: 'second', chain: 'docs' },
      { projectId: 'cut', prompt: 'third', chain: 'docs' },
    ]);
    await startBatch(ctx, { batchId: batch.batchId }, JOBS_SEND);
    const [first, second, third] = batch.promptIds as [string, string, string];
    // As a worker killed in the hand-over would have left it: the first step failed and the steps
    // after it skipped, in Redis only (the warehouse still shows all three queued).
    const now = Date.now();
    expect((await stack.store.transition(first, batch.batchId, { attempt: 0, from: ['queued'], to: 'failed', done: true, set: { finishedAt: now } })).ok).toBe(true);
    for (const id of [second, third]) {
      const moved = await stack.store.transition(id, batch.batchId, { attempt: 0, from: ['queued'], to: 'skipped', done: true, set: { finishedAt: now, error: 'not sent: chain "docs" stopped' } });
      expect(moved.ok).toBe(true);
    }

    expect(await runPromptStep(ctx, { batchId: batch.batchId, promptId: first, attempt: 0 })).toEqual({ kind: 'finished', status: 'failed' });
    const rows = await stack.outcomes(batch.batchId);
    expect(Object.fromEntries(rows.map((r) => [String(r.prompt_id), r.status]))).toEqual({ [first]: 'failed', [second]: 'skipped', [third]: 'skipped' });
    expect(stack.emulator.messages).toHaveLength(0);
  });
});

describe('a lane whose head job was lost', () => {
  it('moves again when the unfinished batch is submitted again', async () => {
    const stack = await open({ workers: false });
    const ctx = contextOf(stack);
    const queue = stack.runtime.queue(QUEUE_NAMES.prompts);
    const prompts = [
      { projectId: 'lost', jobId: 'job-3', prompt: 'head' },
      { projectId: 'lost', jobId: 'job-3', prompt: 'behind it' },
    ];
    const batch = await stack.submit(prompts);
    await startBatch(ctx, { batchId: batch.batchId }, JOBS_SEND);
    const headJob = promptJobId(batch.promptIds[0]!, 0);
    expect(await queue.getJob(promptJobId(batch.promptIds[1]!, 0))).toBeUndefined();
    await queue.remove(headJob);

    const again = await stack.submit(prompts);
    expect(again).toMatchObject({ batchId: batch.batchId, added: 0 });
    const batchJobs = (await queue.getJobs(['waiting'])).filter((j) => j.name === 'batch').map((j) => j.id);
    expect(batchJobs).toContain(batchJobId(batch.batchId, 1));
    await startBatch(ctx, { batchId: batch.batchId }, JOBS_SEND);
    expect(await queue.getJob(headJob)).toBeDefined();

    // The queue then fails the head's job for good (as after too many stalls) without the prompt
    // ending: the next start of the batch retries it, and only then.
    const worker = new Worker(QUEUE_NAMES.prompts, null, { connection: stack.runtime.redis.duplicate(), prefix: queueKeyPrefix(stack.config.queuePrefix), autorun: false });
    try {
      for (const job of await queue.getJobs(['waiting'])) if (job.name === 'batch') await job.remove();
      const taken = await worker.getNextJob('test-token');
      expect(taken?.id).toBe(headJob);
      await taken!.moveToFailed(new UnrecoverableError('stalled too often'), 'test-token');
    } finally {
      await worker.close();
    }
    expect(await (await queue.getJob(headJob))!.getState()).toBe('failed');
    await startBatch(ctx, { batchId: batch.batchId }, JOBS_SEND);
    expect(await (await queue.getJob(headJob))!.getState()).toBe('waiting');
  });
});

describe('deadlines', () => {
  it('ends a sent prompt timed_out when its agent job is still active at the deadline', async () => {
    const stack = await open({ emulator: { agentTimeMs: 5000 }, env: { MINTPIPE_PROMPT_DEADLINE: '300ms' } });
    const batch = await stack.submit([{ projectId: 'slow', jobId: 'job-1', prompt: 'take your time' }]);
    const [p] = (await stack.finish(batch.batchId)).prompts!;
    expect(p!.status).toBe('timed_out');
    expect(p!.error).toMatch(/no outcome within the deadline \(300 ms after the send\): last seen active/);
    expect(Date.parse(p!.finishedAt!) - Date.parse(p!.sentAt!)).toBeGreaterThanOrEqual(300);
    expect(stack.emulator.messages.map((m) => m.prompt)).toEqual(['take your time']);
  });

  it('ends a prompt timed_out without sending it when its agent job stays active past the deadline', async () => {
    const stack = await open({ emulator: { agentTimeMs: 5000 }, env: { MINTPIPE_PROMPT_DEADLINE: '300ms' } });
    stack.emulator.control.setJob('busy', 'job-1', { status: 'active' });
    const batch = await stack.submit([{ projectId: 'busy', jobId: 'job-1', prompt: 'never mind' }]);
    const [p] = (await stack.finish(batch.batchId)).prompts!;
    expect(p).toMatchObject({ status: 'timed_out', sentAt: null });
    expect(p!.error).toMatch(/not sent: the agent job stayed active/);
    expect(stack.emulator.messages).toHaveLength(0);
  });
});

describe('limits and refusals', () => {
  it('keeps sends within the per-project message budget, waiting rather than failing', async () => {
    const stack = await open({ env: { MINTPIPE_MESSAGE_RATE: '2/1s' } });
    const prompts = promptsOver('budget', 6, 1, 1);
    const batch = await stack.submit(prompts);
    const status = await stack.finish(batch.batchId);
    expect(status.byStatus.completed + status.byStatus.failed).toBe(6);
    expect(stack.emulator.messages).toHaveLength(6);
    // At most 2 in any 1 s span: the third-next send is at least a window later. (Send times are
    // taken as the POST goes out; arrival times would add the network's jitter.)
    const times = status.prompts!.map((p) => Date.parse(p.sentAt!)).sort((a, b) => a - b);
    for (let i = 2; i < times.length; i++) expect(times[i]! - times[i - 2]!).toBeGreaterThanOrEqual(1000);
  });

  it('ends prompts rejected when the API key is refused, and still moves on to the next prompt of the lane', async () => {
    const stack = await open({ emulator: { apiKey: 'mint_some_other_key' } });
    const batch = await stack.submit([
      { projectId: 'auth', jobId: 'job-1', prompt: 'first' },
      { projectId: 'auth', jobId: 'job-1', prompt: 'second' },
    ]);
    const status = await stack.finish(batch.batchId);
    expect(status.prompts!.map((p) => p.status)).toEqual(['rejected', 'rejected']);
    expect(status.prompts![0]!.error).toMatch(/AuthError/);
    expect(JSON.stringify(status)).not.toContain(stack.env.MINTLIFY_API_KEY);
    expect(stack.emulator.messages).toHaveLength(0);
  });
});

describe('the batch job', () => {
  it("sends its lanes' first prompts itself, each under a delayed guard job, and leaves later heads to their jobs", async () => {
    const stack = await open({ workers: false });
    const ctx = contextOf(stack);
    const queue = stack.runtime.queue(QUEUE_NAMES.prompts);
    // Two prompts to job-1, one each to job-2 and job-3: three lanes, of which the job sends two.
    const batch = await stack.submit([
      { projectId: 'first', jobId: 'job-1', prompt: 'one' },
      { projectId: 'first', jobId: 'job-2', prompt: 'two' },
      { projectId: 'first', jobId: 'job-1', prompt: 'one, again' },
      { projectId: 'first', jobId: 'job-3', prompt: 'three' },
    ]);
    const [one, two, again, three] = batch.promptIds as [string, string, string, string];
    await startBatch(ctx, { batchId: batch.batchId }, { sendFirst: 2 });

    expect(stack.emulator.messages.map((m) => m.jobId).sort()).toEqual(['job-1', 'job-2']);
    const states = async (id: string) => [(await stack.store.read(id))!.status, await (await queue.getJob(promptJobId(id, 0)))?.getState()];
    // Sent: polling, their jobs delayed to the first poll (the guard moved from ~35 s to it).
    for (const id of [one, two]) {
      expect(await states(id)).toEqual(['polling', 'delayed']);
      const job = (await queue.getJob(promptJobId(id, 0)))!;
      expect(job.timestamp + job.delay - Date.now()).toBeLessThan(ctx.timing.pollMaxMs + 1000);
    }
    // Beyond the first two heads: its own job, due now. Not a head: no job.
    expect(await states(three)).toEqual(['queued', 'waiting']);
    expect(await states(again)).toEqual(['queued', undefined]);
  });

  it('whose send was cut short leaves the prompt to its guard job, which never posts it again', async () => {
    const stack = await open({ workers: false });
    const ctx = contextOf(stack);
    const batch = await stack.submit([{ projectId: 'cut', jobId: 'job-5', prompt: 'sent while the batch job dies' }]);
    const promptId = batch.promptIds[0]!;
    // The message is processed at once and answered 3 s later: the batch job "dies" meanwhile.
    stack.emulator.control.script('message', [{ kind: 'delay', ms: 3000, when: 'after' }]);
    const batchJob = startBatch(ctx, { batchId: batch.batchId });
    await until('the message processed', async () => (stack.emulator.messages.length === 1 ? true : undefined));
    const guard = (await stack.runtime.queue(QUEUE_NAMES.prompts).getJob(promptJobId(promptId, 0)))!;
    expect(await guard.getState()).toBe('delayed');
    expect(guard.delay).toBeGreaterThan(30_000);

    // The guard job's run, as another worker would make it once its delay is over.
    const later = { ...ctx, now: () => Date.now() + ctx.timing.sendGuardMs };
    let outcome: StepOutcome = await runPromptStep(later, { batchId: batch.batchId, promptId, attempt: 0 });
    expect((await stack.store.read(promptId))!.status).toBe('ambiguous');
    for (let steps = 0; outcome.kind === 'wait' && steps < 50; steps++) {
      await new Promise((r) => setTimeout(r, outcome.kind === 'wait' ? outcome.delayMs : 0));
      outcome = await runPromptStep(later, { batchId: batch.batchId, promptId, attempt: 0 });
    }
    expect(outcome).toEqual({ kind: 'finished', status: 'ambiguous' });
    await batchJob;
    expect(stack.emulator.messages).toHaveLength(1);
    expect((await stack.store.read(promptId))!.status).toBe('ambiguous');
  });
});

describe('lane heads sent by two runs at once', () => {
  it('go out once: the claim decides, and the run that lost it sends nothing', async () => {
    const stack = await open({ workers: false });
    const ctx = contextOf(stack);
    const batch = await stack.submit([{ projectId: 'twice', jobId: 'job-3', prompt: 'raced' }]);
    await startBatch(ctx, { batchId: batch.batchId }, JOBS_SEND);
    const head = (await stack.store.read(batch.promptIds[0]!))!;
    // As the batch job and a hand-over from an earlier batch's prompt on the same lane would.
    const delays = await Promise.all([sendInThisRun(ctx, head), sendInThisRun(ctx, head)]);
    expect(stack.emulator.messages).toHaveLength(1);
    expect((await stack.store.read(head.promptId))!.status).toBe('polling');
    expect(delays.every((ms) => ms > 0)).toBe(true);
  });
});

describe('entering lanes', () => {
  it('tells which prompts entered an empty lane: one behind an earlier batch\'s prompt did not', async () => {
    const stack = await open({ workers: false });
    const ctx = contextOf(stack);
    const earlier = await stack.submit([{ projectId: 'lanes', jobId: 'job-8', prompt: 'earlier' }]);
    await startBatch(ctx, { batchId: earlier.batchId }, JOBS_SEND);
    const later = await stack.submit([
      { projectId: 'lanes', jobId: 'job-8', prompt: 'behind the earlier batch' },
      { projectId: 'lanes', jobId: 'job-9', prompt: 'first in its lane' },
      { projectId: 'lanes', jobId: 'job-9', prompt: 'second in its lane' },
    ]);
    const records = (await stack.store.readMany(later.promptIds)).map((r) => r!);
    const { heads, firstInLane } = await stack.store.enterLanes(records);
    expect([...firstInLane]).toEqual([later.promptIds[1]]);
    expect(heads.sort()).toEqual([earlier.promptIds[0]!, later.promptIds[1]!].sort());
    // Entering again changes nothing, and nobody enters an empty lane twice.
    expect((await stack.store.enterLanes(records)).firstInLane.size).toBe(0);
  });
});
