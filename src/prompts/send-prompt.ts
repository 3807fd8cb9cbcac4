/**
 * The send step of a queued prompt, a message or a create, at most once: lane head, a look at the
 * agent job, the budget, the claim and its ledger mark, then the one POST (docs/design.md#the-prompt-engine).
 */
import { randomBytes } from 'node:crypto';
import {
  AmbiguousSendError,
  AuthError,
  InvalidRequestError,
  MintlifyApiError,
  NotFoundError,
  RateLimitedError,
  type AgentJob,
  type AgentJobAnswer,
} from '../api/index.js';
import { errorText, formatDuration } from './describe.js';
import { backoffMs, GET_RETRY } from './prompt-context.js';
import { archivedAtOf, type PromptRecord } from './prompt-record.js';
import { wait, type StepOutcome, type StepScope } from './step-scope.js';

/** How long the look of the prompt ahead in the lane stands in for a check of our own. */
const FRESH_LOOK_MS = 1000;

export async function sendStep(scope: StepScope, record: PromptRecord): Promise<StepOutcome> {
  const { ctx } = scope;
  // A leftover job (only heads have one): look again later.
  if ((await ctx.store.laneHead(record.lane)) !== record.promptId) return wait(ctx.timing.pollMaxMs, 'not the head of its lane');
  if (record.kind === 'create') return post(scope, record, undefined, null);

  // A chain's follow-up goes to the job its first row created (or named).
  const jobId = record.jobId || (record.chainHead && (await ctx.store.read(record.chainHead))?.jobId);
  if (!jobId) return scope.finish(record, 'skipped', { error: 'not sent: the agent job of its chain is not known' });
  const seen = record.before;
  if (seen && record.checkedAtMs !== undefined && ctx.now() - record.checkedAtMs <= FRESH_LOOK_MS && (seen.status === 'completed' || seen.status === 'failed')) {
    return post(scope, record, jobId, JSON.stringify(seen));
  }

  let job: AgentJob;
  ctx.observer.polled?.();
  try {
    job = await ctx.client.getAgentJob(record.projectId, jobId, { retry: GET_RETRY, logger: scope.logger });
  } catch (err) {
    if (err instanceof NotFoundError || err instanceof InvalidRequestError) {
      return scope.finish(record, 'rejected', { error: `not sent: ${errorText(err)}`, jobId });
    }
    if (err instanceof RateLimitedError) return wait(err.retryAfterMs, 'rate limited checking the agent job');
    if (err instanceof AuthError || !(err instanceof MintlifyApiError)) throw err;
    return failedAttempt(scope, record, err);
  }

  if (job.status === 'archived') return scope.finish(record, 'rejected', { error: 'not sent: the agent job is archived', jobId });
  const now = ctx.now();
  if (job.status === 'active') {
    const since = record.waitingSinceMs ?? now;
    if (now - since >= ctx.timing.deadlineMs) {
      return scope.finish(record, 'timed_out', { error: `not sent: the agent job stayed active for ${formatDuration(now - since)}`, jobId });
    }
    await ctx.store.patch(record, { waitingSince: since, checks: record.checks + 1, failures: 0 });
    return wait(backoffMs(ctx.timing, record.checks), 'agent job is active');
  }
  return post(scope, record, jobId, JSON.stringify({ status: job.status, prLink: job.prLink, archivedAt: archivedAtOf(job.archivedAt) }));
}

/** Budget, claim, and the one POST: a message to `jobId`, or a create when there is none. */
async function post(scope: StepScope, record: PromptRecord, jobId: string | undefined, before: string | null): Promise<StepOutcome> {
  const { ctx } = scope;
  const budget = ctx.budget(record.projectId, record.kind);
  const take = await budget.tryTake();
  if (!take.granted) return wait(take.waitMs, `${record.kind} budget spent`);

  const token = randomBytes(8).toString('hex');
  const claim = await scope.move(record, 'sending', { before, sentAt: ctx.now(), error: null, claim: token, ...(jobId ? { jobId } : {}) });
  if (!claim.ok) {
    // Another run moved it (a lost job lock): the next run sees where it is.
    if (claim.reason === 'wrong-status') return wait(ctx.timing.pollInitialMs, 'claimed elsewhere');
    return { kind: 'skipped', reason: `claim refused: ${claim.reason}` };
  }
  const sending = claim.record;
  try {
    await scope.writeNow(sending);
  } catch (err) {
    const back = await scope.move(sending, 'queued', { sentAt: null, before: null, claim: null, error: `not sent yet: the ledger (warehouse) did not record the send: ${errorText(err)}` });
    if (!back.ok) return { kind: 'skipped', reason: back.reason };
    return wait(ctx.timing.pollMaxMs, 'ledger unavailable; not sent');
  }
  if (!(await ctx.store.holdsClaim(sending.promptId, token))) {
    scope.logger.warn({ event: 'prompt.claim_lost', prompt: sending.promptId }, 'claim lost before the POST (Redis forgot or re-made the prompt); not sent');
    return { kind: 'skipped', reason: 'claim lost before the POST; not sent' };
  }

  let answer: AgentJobAnswer;
  try {
    ctx.observer.sent?.();
    const call = { retry: false as const, logger: scope.logger, afterAttempt: () => budget.settle(take.slot), onNotSent: () => budget.giveBack(take.slot) };
    answer = jobId
      ? await ctx.client.sendMessage(record.projectId, jobId, record.prompt, call)
      : await ctx.client.createAgentJob(record.projectId, record.prompt, call);
  } catch (err) {
    return sendFailed(scope, sending, err);
  }
  const firstPollMs = ctx.pace.firstPollMs(record);
  const polling = await scope.move(sending, 'polling', {
    jobId: answer.id,
    pollDueAt: ctx.now() + Math.ceil(firstPollMs),
    observedActive: answer.status === 'active',
    lastStatus: answer.status,
    waitingSince: null,
    failures: 0,
    error: null,
  });
  if (!polling.ok) return { kind: 'skipped', reason: `sent, but the record moved on: ${polling.reason}` };
  return wait(firstPollMs, 'sent; first poll');
}

async function sendFailed(scope: StepScope, sending: PromptRecord, err: unknown): Promise<StepOutcome> {
  const unsent = { sentAt: null, before: null };
  if (err instanceof RateLimitedError) {
    // Someone else spent the project's budget: everyone waits.
    await scope.ctx.budget(sending.projectId, sending.kind).pause(err.retryAfterMs);
    const back = await scope.move(sending, 'queued', { ...unsent, error: `not sent yet: ${errorText(err)}` });
    if (!back.ok) return { kind: 'skipped', reason: back.reason };
    return wait(err.retryAfterMs, 'rate limited (429)');
  }
  if (err instanceof InvalidRequestError || err instanceof NotFoundError) {
    return scope.finish(sending, 'rejected', { ...unsent, error: errorText(err) });
  }
  if (err instanceof AuthError) {
    // Not sent; the queue's error handling ends it (a key problem).
    await scope.move(sending, 'queued', { ...unsent, error: `not sent: ${errorText(err)}` });
    throw err;
  }
  if (err instanceof MintlifyApiError && !err.mayHaveReachedServer) {
    const back = await scope.move(sending, 'queued', unsent);
    if (!back.ok) return { kind: 'skipped', reason: back.reason };
    return failedAttempt(scope, back.record, err);
  }
  const cause = errorText(err instanceof AmbiguousSendError && err.cause !== undefined ? err.cause : err);
  return ambiguousSend(scope, sending, `the create may have been performed (${cause})`, `the send may have been received (${cause})`);
}

/**
 * A send whose arrival is unknown is never resent: a create ends ambiguous (no job id came back, its
 * chain held until resent); a message's agent job is observed for a sign it was processed.
 */
export async function ambiguousSend(scope: StepScope, record: PromptRecord, createdMaybe: string, receivedMaybe: string): Promise<StepOutcome> {
  if (record.kind === 'create') return scope.finish(record, 'ambiguous', { error: `${createdMaybe}; its job is unknown, so it is not resent` });
  const moved = await scope.move(record, 'ambiguous', { error: `${receivedMaybe}; not resent` });
  if (!moved.ok) return { kind: 'skipped', reason: moved.reason };
  return wait(scope.ctx.timing.pollInitialMs, 'ambiguous send; observing the agent job');
}

/** A check or send that failed without sending anything: back off, and give up after too many. */
async function failedAttempt(scope: StepScope, record: PromptRecord, err: unknown): Promise<StepOutcome> {
  const { ctx } = scope;
  const failures = record.failures + 1;
  if (failures >= ctx.timing.maxConsecutiveFailures) {
    return scope.finish(record, 'rejected', { error: `not sent after ${failures} failed attempts: ${errorText(err)}`, failures });
  }
  await ctx.store.patch(record, { failures, error: `not sent yet: ${errorText(err)}` });
  return wait(backoffMs(ctx.timing, failures - 1), 'check failed');
}
