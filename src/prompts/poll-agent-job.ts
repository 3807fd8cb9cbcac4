/**
 * The poll step of a sent (or ambiguously sent) prompt: one GET per run, at the agents' pace, until
 * a terminal status that belongs to this send, or the deadline (docs/design.md#the-prompt-engine).
 * A failed GET is just a later poll.
 */
import { AuthError, isTerminalStatus, RateLimitedError, type AgentJob } from '../api/index.js';
import { GET_RETRY, type PromptTiming } from './prompt-context.js';
import { archivedAtOf, type PromptRecord } from './prompt-record.js';
import { jobChanged } from './job-changes.js';
import { errorText, formatDuration } from './describe.js';
import { wait, type StepOutcome, type StepScope } from './step-scope.js';

/** Whether a terminal look is this send's outcome, not the job's state from before it. */
function isOutcomeOfThisSend(record: PromptRecord, job: AgentJob, observedActive: boolean, polls: number, sinceSendMs: number, timing: PromptTiming): boolean {
  if (observedActive || !record.before || job.status !== record.before.status || job.prLink !== record.before.prLink) return true;
  return polls >= timing.unchangedPollsToSettle && sinceSendMs >= timing.settleMs;
}

export async function pollStep(scope: StepScope, record: PromptRecord): Promise<StepOutcome> {
  const { ctx } = scope;
  const sentAtMs = record.sentAtMs ?? ctx.now();
  const deadlineMs = sentAtMs + ctx.timing.deadlineMs;

  let pollError: unknown;
  const job = await ctx.client.getAgentJob(record.projectId, record.jobId, { retry: GET_RETRY, logger: scope.logger }).catch((err: unknown) => {
    if (err instanceof AuthError) throw err;
    pollError = err;
    return undefined;
  });
  ctx.observer.polled?.();
  const polls = record.polls + 1;
  const now = ctx.now();
  const observedActive = record.observedActive || job?.status === 'active';
  if (job && isTerminalStatus(job.status) && isOutcomeOfThisSend(record, job, observedActive, polls, now - sentAtMs, ctx.timing)) {
    // A run time to learn; a look later than planned (a busy queue) counts as the planned time.
    const endedBy = Math.min(now, record.pollDueAtMs ?? now) - sentAtMs;
    if (observedActive && record.status === 'polling') ctx.pace.observe(record, (record.polledAtMs ?? sentAtMs) - sentAtMs, endedBy);
    return settle(scope, record, job, polls, observedActive);
  }
  if (now >= deadlineMs) return deadlinePassed(scope, record, polls, job?.status ?? record.lastStatus, pollError);
  let delayMs = Math.min(ctx.pace.nextPollMs(record, now - sentAtMs), deadlineMs - now);
  if (pollError instanceof RateLimitedError) delayMs = Math.max(delayMs, pollError.retryAfterMs);
  const pollDueAt = now + Math.ceil(delayMs);
  if (job) {
    await ctx.store.patch(record, { polls, observedActive, lastStatus: job.status, lastArchivedAt: archivedAtOf(job.archivedAt), polledAt: job.status === 'active' ? now : null, pollDueAt });
  } else {
    // An ambiguous prompt keeps the description of its send in `error`.
    await ctx.store.patch(record, record.status === 'polling' ? { polls, error: `last poll failed: ${errorText(pollError)}`, pollDueAt } : { polls, pollDueAt });
  }
  return wait(delayMs, 'polling');
}

async function settle(scope: StepScope, record: PromptRecord, job: AgentJob, polls: number, observedActive: boolean): Promise<StepOutcome> {
  const common = { polls, observedActive, lastStatus: job.status, prLink: job.prLink, lastArchivedAt: archivedAtOf(job.archivedAt) };
  const before = record.before;
  const moved = observedActive || (before !== undefined && jobChanged(before, { status: job.status, prLink: job.prLink, archivedAt: archivedAtOf(job.archivedAt) }).length > 0);
  // Without a sign the message was processed, the pull request is the job's earlier work (a created job has none).
  if (!moved && (before !== undefined || record.status === 'ambiguous')) common.prLink = null;
  if (record.status === 'polling' && job.status !== 'active') return scope.finish(record, job.status, { ...common, error: null });
  const seen = moved
    ? `observed: the agent job ran and ended ${job.status}`
    : before
      ? `observed: no sign the message was processed (the agent job stayed ${job.status})`
      : `observed: the agent job is ${job.status}, and its state before the send is unknown: no sign the message was processed`;
  return scope.finish(record, 'ambiguous', { ...common, error: `${record.error ?? 'send outcome unknown'}; ${seen}` });
}

async function deadlinePassed(scope: StepScope, record: PromptRecord, polls: number, lastStatus: string | undefined, pollError: unknown): Promise<StepOutcome> {
  const last = lastStatus ? `last seen ${lastStatus}` : `no successful poll${pollError ? ` (${errorText(pollError)})` : ''}`;
  const text = `no outcome within the deadline (${formatDuration(scope.ctx.timing.deadlineMs)} after the send): ${last}`;
  if (record.status === 'polling') return scope.finish(record, 'timed_out', { polls, error: text });
  return scope.finish(record, 'ambiguous', { polls, error: `${record.error ?? 'send outcome unknown'}; ${text}` });
}
