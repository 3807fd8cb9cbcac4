/**
 * One run of a prompt job: changes the record through the store, remembers each change for the
 * warehouse, and notes in `ended` a prompt it ended (the runner then hands its lane on); and what
 * the run ended with (the processor maps `wait` to a delayed job).
 */
import type { Logger } from '../logger.js';
import type { PromptContext } from './prompt-context.js';
import type { PromptRecord } from './prompt-record.js';
import type { PromptStatus } from './prompt-status.js';
import type { FieldChanges, TransitionResult } from './prompt-store.js';

export type StepOutcome =
  /** Run again after `delayMs` (a poll, a busy agent job, the budget, a 429): holds no worker. */
  | { kind: 'wait'; delayMs: number; reason: string }
  /** The prompt's outcome is final and its lane was handed on. */
  | { kind: 'finished'; status: PromptStatus }
  /** Nothing to do: the prompt is gone, or a newer send attempt owns it. */
  | { kind: 'skipped'; reason: string };

export function wait(delayMs: number, reason: string): StepOutcome {
  return { kind: 'wait', delayMs: Math.max(1, Math.ceil(delayMs)), reason };
}

export class StepScope {
  readonly logger: Logger;
  /** The prompt's final record, once this run ended it or found it ended: its lane moves on next. */
  ended: PromptRecord | undefined;
  private readonly changed: PromptRecord[] = [];

  constructor(
    readonly ctx: PromptContext,
    record: PromptRecord,
    /** The run that handed the lane on: its unwritten changes go with this run's ledger mark. */
    private readonly parent?: StepScope,
  ) {
    this.logger = ctx.logger.child({ batch: record.batchId, prompt: record.promptId, project: record.projectId, job: record.jobId });
    // A run that died before writing: the warehouse gets the current state now.
    if (record.syncedVersion < record.version) this.changed.push(record);
  }

  /** Moves the prompt from `record.status` to `to`; the result says why when it could not. */
  async move(record: PromptRecord, to: PromptStatus, set: FieldChanges = {}, done = false): Promise<TransitionResult> {
    const result = await this.ctx.store.transition(record.promptId, record.batchId, {
      attempt: record.attempt,
      from: [record.status],
      to,
      done,
      // A send in flight is this run's only while the prompt still carries the run's claim.
      claim: record.status === 'sending' ? record.claim : undefined,
      set,
    });
    if (result.ok) {
      this.changed.push(result.record);
      this.ctx.observer.statusChanged?.(to);
      this.logger[done ? 'info' : 'debug']({ event: 'prompt.status', from: record.status, status: to, done, error: result.record.error }, 'prompt status');
    } else {
      this.logger.warn({ event: 'prompt.transition_refused', from: record.status, to, reason: result.reason, current: result.status }, 'prompt moved on elsewhere');
    }
    return result;
  }

  /** Ends the prompt with a final outcome; its lane is handed on after the step (its chain goes on, stops or waits). */
  async finish(record: PromptRecord, to: PromptStatus, set: FieldChanges = {}): Promise<StepOutcome> {
    const result = await this.move(record, to, { finishedAt: this.ctx.now(), ...set }, true);
    if (!result.ok) return { kind: 'skipped', reason: `could not end as ${to}: ${result.reason}` };
    this.ended = result.record;
    return { kind: 'finished', status: to };
  }

  /** Writes `record` to the warehouse now and waits (the `sending` mark before a POST), not again at the end. */
  async writeNow(record: PromptRecord): Promise<void> {
    // The parent's changes ride along (one insert, not two); on failure they go back to it.
    const carried = this.parent ? this.parent.changed.splice(0) : [];
    try {
      await this.ctx.writer.write([...carried, record]);
    } catch (err) {
      this.parent?.changed.unshift(...carried);
      throw err;
    }
    const at = this.changed.indexOf(record);
    if (at >= 0) this.changed.splice(at, 1);
  }

  /** Adds another prompt's current state, changed by an earlier run, to what this run writes. */
  remember(record: PromptRecord): void {
    if (!this.changed.some((r) => r.promptId === record.promptId)) this.changed.push(record);
  }

  /**
   * Runs a step and writes its changes: awaited when final (no later run would write them), behind
   * when it waits (its next run writes them if this fails) or throws (the failure is what counts).
   */
  async runAndWrite(step: () => Promise<StepOutcome>): Promise<StepOutcome> {
    const kept = (err: unknown) => this.logger.warn({ event: 'prompt_events_write_failed', err }, 'events kept for the next run');
    const outcome = await step().catch(async (err: unknown) => {
      await this.flush().catch(kept);
      throw err;
    });
    if (outcome.kind === 'wait') this.flush().catch(kept);
    else await this.flush();
    return outcome;
  }

  flush(): Promise<void> {
    return this.ctx.writer.write(this.changed.splice(0));
  }
}
