/**
 * Prompt states as append-only events; `prompt_outcomes` shows each prompt's latest (highest
 * `version`). `kind` says whether the prompt creates its agent job or messages one; `job_id` is
 * the job the prompt ended on (a create's new job once known).
 */
import { fromNullableDateTime64, toDateTime64 } from './datetime.js';
import { insertRows } from './insert-rows.js';
import { selectRows } from './select-rows.js';
import { tableName } from './sql-text.js';
import type { Warehouse } from './warehouse.js';

export type PromptStatus =
  | 'queued'
  | 'sending'
  | 'polling'
  | 'completed'
  | 'archived'
  | 'failed'
  | 'timed_out'
  | 'ambiguous'
  | 'rejected'
  | 'skipped'
  | 'cancelled';

export type PromptEventKind = 'create' | 'message';

export interface PromptEvent {
  batchId: string;
  promptId: string;
  projectId: string;
  jobId: string;
  status: PromptStatus;
  /** @default 'message' */
  kind?: PromptEventKind;
  /** The file's chain key. @default null */
  chain?: string | null;
  /** @default null */
  prLink?: string | null;
  /** @default null */
  sentAt?: Date | null;
  /** @default null */
  finishedAt?: Date | null;
  /** @default 0 */
  polls?: number;
  /** @default null */
  error?: string | null;
  /** The earlier batch whose row this prompt's state was taken from (null: its own). @default null */
  sentBy?: string | null;
  /** Increases with every event of the prompt; the highest is its current state. */
  version: number;
  /** @default now */
  recordedAt?: Date;
  /** The ledger's key of the prompt: its row (project, job or chain, text, occurrence). @default '' */
  identity?: string;
  /** The prompt text (written on `queued` events, for recovery). @default '' */
  prompt?: string;
  /** 0-based position in the batch. @default 0 */
  position?: number;
  /** 1-based line of the file. @default null */
  line?: number | null;
  /** Send generation (0, then +1 per explicit resend). @default 0 */
  attempt?: number;
  /** On a `sending` mark: the agent job as last observed before the send (JSON). @default '' */
  seenBefore?: string;
  /** The row's key (query rows; prompt-input.ts), '' for file rows. @default '' */
  key?: string;
  /** Ids of the reader input behind a triage prompt (on `queued` events). @default [] */
  sources?: readonly string[];
}

/** One prompt's latest state, as the `prompt_outcomes` view shows it. */
export interface PromptOutcome {
  batchId: string;
  promptId: string;
  projectId: string;
  jobId: string;
  status: PromptStatus;
  prLink: string | null;
  sentAt: Date | null;
  finishedAt: Date | null;
  polls: number;
  error: string | null;
  kind: PromptEventKind;
  chain: string | null;
}

function nullableDateTime(date: Date | null | undefined): string | null {
  return date ? toDateTime64(date) : null;
}

export async function insertPromptEvents(wh: Warehouse, events: readonly PromptEvent[]): Promise<void> {
  const now = toDateTime64(new Date());
  await insertRows(
    wh,
    'prompt_events',
    events.map((event) => ({
      batch_id: event.batchId,
      prompt_id: event.promptId,
      project_id: event.projectId,
      job_id: event.jobId,
      status: event.status,
      pr_link: event.prLink ?? null,
      sent_at: nullableDateTime(event.sentAt),
      finished_at: nullableDateTime(event.finishedAt),
      polls: event.polls ?? 0,
      error: event.error ?? null,
      version: event.version,
      recorded_at: event.recordedAt ? toDateTime64(event.recordedAt) : now,
      kind: event.kind ?? 'message',
      chain: event.chain ?? null,
      identity: event.identity ?? '',
      prompt: event.prompt ?? '',
      position: event.position ?? 0,
      line: event.line ?? null,
      attempt: event.attempt ?? 0,
      sent_by: event.sentBy ?? '',
      seen_before: event.seenBefore ?? '',
      key: event.key ?? '',
      sources: [...(event.sources ?? [])],
    })),
  );
}

export async function insertPromptEvent(wh: Warehouse, event: PromptEvent): Promise<void> {
  await insertPromptEvents(wh, [event]);
}

/** Latest state of every prompt of a batch, by prompt id. */
export async function promptOutcomes(wh: Warehouse, batchId: string): Promise<PromptOutcome[]> {
  const rows = await selectRows<{
    batch_id: string;
    prompt_id: string;
    project_id: string;
    job_id: string;
    status: PromptStatus;
    pr_link: string | null;
    sent_at: string | null;
    finished_at: string | null;
    polls: number | string;
    error: string | null;
    kind: PromptEventKind;
    chain: string | null;
  }>(
    wh,
    `SELECT * FROM ${tableName(wh, 'prompt_outcomes')} WHERE batch_id = {batchId:String} ORDER BY prompt_id`,
    { batchId },
  );
  return rows.map((row) => ({
    batchId: row.batch_id,
    promptId: row.prompt_id,
    projectId: row.project_id,
    jobId: row.job_id,
    status: row.status,
    prLink: row.pr_link,
    sentAt: fromNullableDateTime64(row.sent_at),
    finishedAt: fromNullableDateTime64(row.finished_at),
    polls: Number(row.polls),
    error: row.error,
    kind: row.kind,
    chain: row.chain,
  }));
}
