/**
 * One run of a prompt job: reads the prompt's record and takes the next step from its status.
 * The moves below are the ones prompt-transitions.ts declares (and the store holds them to):
 *
 *   queued ──send──▶ sending ──200──▶ polling ──terminal──▶ completed | archived | failed
 *     │  ▲              │  │                  └─deadline──▶ timed_out
 *     │  └─429/unsent───┘  ├─400/404────────▶ rejected
 *     │                    └─5xx/timeout/reset/unknown──▶ ambiguous (observed by polling, then final)
 *     ├─job 404 / archived / failing checks───▶ rejected
 *     └─job active past the deadline──────────▶ timed_out
 *
 * A run that STARTS in `sending` is a re-run of a job whose worker stopped between the claim and
 * recording the POST's answer (a crash, a stalled lock): the POST may have gone out, so it is
 * never repeated; the prompt becomes `ambiguous` and its agent job is observed like any other (a
 * create has no known job: it ends `ambiguous` at once, holding its chain). Not before a send's
 * longest time (sendGuardMs) has passed since the claim, though: until then the claiming run may
 * still be waiting for the answer.
 */
import { handOver } from './hand-over.js';
import { pollStep } from './poll-agent-job.js';
import type { PromptContext } from './prompt-context.js';
import type { PromptJobData } from './prompt-jobs.js';
import type { PromptRecord } from './prompt-record.js';
import { sendStep, type HandedOver } from './send-prompt.js';
import { wait, type StepOutcome } from './step-outcome.js';
import { StepScope } from './step-scope.js';

export async function runPromptStep(ctx: PromptContext, data: PromptJobData): Promise<StepOutcome> {
  const record = await ctx.store.read(data.promptId);
  if (!record) return { kind: 'skipped', reason: 'prompt not found' };
  if (record.attempt !== data.attempt) return { kind: 'skipped', reason: `attempt ${data.attempt} was superseded by ${record.attempt}` };
  return runStep(ctx, record);
}

/**
 * Sends a lane's head in the current run rather than by its queue job (whose guard the caller
 * added: sendWithGuards): its agent job is not left idle for a queue round trip. `parent` is the
 * run that handed the lane on (its changes go to the warehouse with this send's), `handedOver`
 * what that run knows. Returns the delay to the head's first poll (0 when it already ended, so
 * its job hands over).
 */
export async function sendInThisRun(ctx: PromptContext, head: PromptRecord, from: { parent?: StepScope; handedOver?: HandedOver } = {}): Promise<number> {
  const outcome = await runStep(ctx, head, from);
  return outcome.kind === 'wait' ? outcome.delayMs : 0;
}

/**
 * The one runner of a prompt's step, whoever starts it (its queue job, the batch job, or the run
 * that handed the lane on): takes the step, hands the lane on when the step ended the prompt, and
 * writes the run's changes.
 */
async function runStep(ctx: PromptContext, record: PromptRecord, from: { parent?: StepScope; handedOver?: HandedOver } = {}): Promise<StepOutcome> {
  const scope = new StepScope(ctx, record, from.parent);
  return scope.runAndWrite(async () => {
    const outcome = await advance(scope, record, from.handedOver);
    await handOverIfEnded(scope);
    return outcome;
  });
}

async function handOverIfEnded(scope: StepScope): Promise<void> {
  if (!scope.ended) return;
  await handOver(scope, scope.ended, (head, jobId) => sendInThisRun(scope.ctx, head, { parent: scope, handedOver: { jobId } }));
}

async function advance(scope: StepScope, record: PromptRecord, handedOver: HandedOver | undefined): Promise<StepOutcome> {
  if (record.done) {
    // Final already: a re-run after a crash completes the hand-over of the lane.
    scope.ended = record;
    return { kind: 'finished', status: record.status };
  }
  switch (record.status) {
    case 'queued':
      return sendStep(scope, record, handedOver);
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

/** A run that starts in `sending` (see the top of this file). */
async function sendingFound(scope: StepScope, record: PromptRecord): Promise<StepOutcome> {
  // Claimed less than a send's longest time ago: the run that claimed it may still be waiting
  // for the answer (a guard job added before a slow check, budget or ledger write is due
  // while the POST is in flight). Its answer, or this wait running out, decides.
  const inFlightUntil = (record.sentAtMs ?? 0) + scope.ctx.timing.sendGuardMs;
  if (scope.ctx.now() < inFlightUntil) return wait(inFlightUntil - scope.ctx.now(), 'a send may still be in flight');
  if (record.kind === 'create') {
    return scope.finish(record, 'ambiguous', {
      error: 'the worker stopped while creating the agent job; the create may have been performed, its job is unknown, so it is not resent',
    });
  }
  const moved = await scope.move(record, 'ambiguous', {
    error: 'the worker stopped while sending; the message may have been received, so it is not resent',
  });
  if (!moved.ok) return { kind: 'skipped', reason: moved.reason };
  return wait(scope.ctx.timing.pollInitialMs, 'ambiguous send; observing the agent job');
}

/**
 * The queue gave up on a prompt job (its attempts are spent, or the error cannot be retried):
 * the prompt ends with what is known, and its lane moves on so later prompts are not blocked.
 */
export async function abandonPrompt(ctx: PromptContext, data: PromptJobData, reason: string): Promise<void> {
  const record = await ctx.store.read(data.promptId);
  if (!record || record.attempt !== data.attempt) return;
  const scope = new StepScope(ctx, record);
  if (record.done) {
    scope.ended = record;
  } else if (record.status === 'queued') {
    await scope.finish(record, 'rejected', { error: `not sent: ${reason}` });
  } else if (record.status === 'polling') {
    await scope.finish(record, 'timed_out', { error: `polling stopped: ${reason}` });
  } else {
    // sending or ambiguous: whether it was received is unknown.
    await scope.finish(record, 'ambiguous', { error: `${record.error ? `${record.error}; ` : ''}gave up: ${reason}` });
  }
  await handOverIfEnded(scope);
  await scope.flush();
}
