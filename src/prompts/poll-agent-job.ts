/**
 * The poll step of a sent (or ambiguously sent) prompt: one GET of its agent job per run, the
 * next run delayed at the agents' pace (poll-pace.ts), until a terminal status that belongs to
 * this run or the deadline (deadlineMs after the send).
 *
 * The race after a send: the server processes a message asynchronously, so right after the POST
 * the job may still show its PREVIOUS outcome (say `completed`). A terminal status is taken as
 * this run's outcome only with evidence that the job moved after the send: it was seen `active`
 * (the POST's own answer counts), or its status or PR link differs from the snapshot taken just
 * before the send. Without such evidence the same status must be seen on `unchangedPollsToSettle`
 * polls and `settleMs` after the send: a run quicker than our polls leaves no `active` to see, and
 * a server slow to pick the message up shows the old outcome however often we look.
 *
 * A failed GET is just a later poll (the client already retried it briefly).
 */
import { AuthError, isTerminalStatus, RateLimitedError, type AgentJob } from '../api/index.js';
import { GET_RETRY, type PromptTiming } from './prompt-context.js';
import type { PromptRecord } from './prompt-record.js';
import { archivedAtOf } from './prompt-record.js';
import { jobChanged } from './job-changes.js';
import { errorText, formatDuration } from './describe.js';
import { wait, type StepOutcome } from './step-outcome.js';
import type { StepScope } from './step-scope.js';

/** Whether a terminal observation is this run's outcome rather than the previous one. */
export function isOutcomeOfThisSend(
  record: PromptRecord,
  job: AgentJob,
  observedActive: boolean,
  unchanged: { polls: number; sinceSendMs: number },
  timing: Pick<PromptTiming, 'unchangedPollsToSettle' | 'settleMs'>,
): boolean {
  if (observedActive) return true;
  const before = record.before;
  if (!before) return true;
  if (job.status !== before.status || job.prLink !== before.prLink) return true;
  return unchanged.polls >= timing.unchangedPollsToSettle && unchanged.sinceSendMs >= timing.settleMs;
}

export async function pollStep(scope: StepScope, record: PromptRecord): Promise<StepOutcome> {
  const { ctx } = scope;
  const sentAtMs = record.sentAtMs ?? ctx.now();
  const deadlineMs = sentAtMs + ctx.timing.deadlineMs;

  let job: AgentJob | undefined;
  let pollError: unknown;
  try {
    job = await ctx.client.getAgentJob(record.projectId, record.jobId, { retry: GET_RETRY, logger: scope.logger });
  } catch (err) {
    if (err instanceof AuthError) throw err;
    pollError = err;
  }
  ctx.observer.polled?.();
  const polls = record.polls + 1;
  const now = ctx.now();

  if (job) {
    const observedActive = record.observedActive || job.status === 'active';
    // Without evidence of a change, every poll so far showed the old outcome (or failed): only
    // enough of them, and enough time since the send, say the server did not just start late.
    if (isTerminalStatus(job.status) && isOutcomeOfThisSend(record, job, observedActive, { polls, sinceSendMs: now - sentAtMs }, ctx.timing)) {
      // With the run seen active, it ended between the last look and this one: a run time to learn.
      // A look that came later than planned (a busy queue) says nothing about the run after the
      // planned time: taking that as the end keeps a busy queue from teaching ever later polls.
      const endedBy = Math.min(now, record.pollDueAtMs ?? now) - sentAtMs;
      if (observedActive && record.status === 'polling') ctx.pace.observe(record, (record.polledAtMs ?? sentAtMs) - sentAtMs, endedBy);
      return settle(scope, record, job, polls, observedActive);
    }
    if (now >= deadlineMs) return deadlinePassed(scope, record, polls, job.status, undefined);
  } else if (now >= deadlineMs) return deadlinePassed(scope, record, polls, record.lastStatus, pollError);
  let delayMs = Math.min(ctx.pace.nextPollMs(record, now - sentAtMs), deadlineMs - now);
  if (pollError instanceof RateLimitedError) delayMs = Math.max(delayMs, pollError.retryAfterMs);
  const pollDueAt = now + Math.ceil(delayMs);
  if (job) {
    const observedActive = record.observedActive || job.status === 'active';
    await ctx.store.patch(record, { polls, observedActive, lastStatus: job.status, lastArchivedAt: archivedAtOf(job.archivedAt), polledAt: job.status === 'active' ? now : null, pollDueAt });
  } else {
    // An ambiguous prompt keeps the description of its send in `error`.
    await ctx.store.patch(record, record.status === 'polling' ? { polls, error: `last poll failed: ${errorText(pollError)}`, pollDueAt } : { polls, pollDueAt });
  }
  return wait(delayMs, 'polling');
}

async function settle(scope: StepScope, record: PromptRecord, job: AgentJob, polls: number, observedActive: boolean): Promise<StepOutcome> {
  const common = { polls, observedActive, lastStatus: job.status, prLink: job.prLink, lastArchivedAt: archivedAtOf(job.archivedAt) };
  if (record.status === 'polling') {
    if (job.status === 'active') throw new Error('unreachable: active is not terminal');
    return scope.finish(record, job.status, { ...common, error: null });
  }
  // Without the job's state from before the send (a row taken over from the ledger), only seeing
  // it active shows that it ran.
  const before = record.before;
  const moved = observedActive || (before !== undefined && jobChanged(before, { status: job.status, prLink: job.prLink, archivedAt: archivedAtOf(job.archivedAt) }).length > 0);
  // Without a sign the message was processed, the job's pull request is its earlier work, not this prompt's.
  if (!moved) common.prLink = null;
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
