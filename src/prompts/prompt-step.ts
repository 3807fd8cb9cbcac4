/** One run of a prompt job: the next step from the prompt's status (docs/design.md#the-prompt-engine). */
import { handOver } from './lanes.js';
import { pollStep } from './poll-agent-job.js';
import type { PromptContext } from './prompt-context.js';
import type { PromptJobData } from './prompt-jobs.js';
import type { PromptRecord } from './prompt-record.js';
import { ambiguousSend, sendStep } from './send-prompt.js';
import { StepScope, wait, type StepOutcome } from './step-scope.js';

export async function runPromptStep(ctx: PromptContext, data: PromptJobData): Promise<StepOutcome> {
  const record = await ctx.store.read(data.promptId);
  if (!record) return { kind: 'skipped', reason: 'prompt not found' };
  if (record.attempt !== data.attempt) return { kind: 'skipped', reason: `attempt ${data.attempt} was superseded by ${record.attempt}` };
  return runStep(ctx, record, advance);
}

/** The queue gave up on a prompt job: it ends with what is known, and its lane moves on. */
export async function abandonPrompt(ctx: PromptContext, data: PromptJobData, reason: string): Promise<void> {
  const record = await ctx.store.read(data.promptId);
  if (record?.attempt === data.attempt) await runStep(ctx, record, (scope) => giveUp(scope, record, reason));
}

/**
 * Sends a lane's head in this run, under the guard the caller added (sendWithGuards). `parent`
 * handed the lane on; returns the delay to the first poll (0 when it ended: its job hands over).
 */
export async function sendInThisRun(ctx: PromptContext, head: PromptRecord, parent?: StepScope): Promise<number> {
  const outcome = await runStep(ctx, head, advance, parent);
  return outcome.kind === 'wait' ? outcome.delayMs : 0;
}

/** The one runner of a step, whoever starts it: the step, the hand-over if it ended, the writes. */
async function runStep(ctx: PromptContext, record: PromptRecord, step: typeof advance, parent?: StepScope): Promise<StepOutcome> {
  const scope = new StepScope(ctx, record, parent);
  return scope.runAndWrite(async () => {
    const outcome = await step(scope, record);
    if (scope.ended) await handOver(scope, scope.ended, (head) => sendInThisRun(ctx, head, scope));
    return outcome;
  });
}

async function advance(scope: StepScope, record: PromptRecord): Promise<StepOutcome> {
  if (record.done) {
    // A re-run after a crash completes the hand-over.
    scope.ended = record;
    return { kind: 'finished', status: record.status };
  }
  switch (record.status) {
    case 'queued':
      return sendStep(scope, record);
    case 'sending':
      return sendingFound(scope, record);
    case 'polling':
    case 'ambiguous':
      return pollStep(scope, record);
    default:
      // A final status whose `done` flag was never set (not written by this code): make it final.
      return scope.finish(record, record.status);
  }
}

/** A run that starts in `sending`: never posts; ambiguous once the claiming run cannot be waiting any more. */
async function sendingFound(scope: StepScope, record: PromptRecord): Promise<StepOutcome> {
  const inFlightUntil = (record.sentAtMs ?? 0) + scope.ctx.timing.sendGuardMs;
  if (scope.ctx.now() < inFlightUntil) return wait(inFlightUntil - scope.ctx.now(), 'a send may still be in flight');
  return ambiguousSend(scope, record, 'the worker stopped while creating the agent job; the create may have been performed', 'the worker stopped while sending; the message may have been received');
}

/** The step of a prompt job the queue gave up on: the outcome is what is known so far. */
async function giveUp(scope: StepScope, record: PromptRecord, reason: string): Promise<StepOutcome> {
  if (record.done) return advance(scope, record);
  if (record.status === 'queued') return scope.finish(record, 'rejected', { error: `not sent: ${reason}` });
  if (record.status === 'polling') return scope.finish(record, 'timed_out', { error: `polling stopped: ${reason}` });
  // sending or ambiguous: whether it was received is unknown.
  return scope.finish(record, 'ambiguous', { error: `${record.error ? `${record.error}; ` : ''}gave up: ${reason}` });
}
