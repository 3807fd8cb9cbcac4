/**
 * The prompt ledger of record: what `prompt_events` knows of each prompt, read back when Redis
 * forgot it (recovery) or when a batch is started (a row sent before is not sent again). One row
 * per prompt (batch, prompt id): its latest state, the same pick as `prompt_outcomes` (highest
 * version, then latest recorded), plus what the batch is rebuilt from (text, position, line, the
 * job it was submitted to).
 */
import { selectRows } from './select-rows.js';
import { stringLiteral, tableName } from './sql-text.js';
import type { PromptEventKind, PromptStatus } from './prompt-events.js';
import type { Warehouse } from './warehouse.js';

export interface LedgerEntry {
  batchId: string;
  promptId: string;
  /** '' for events written before identities. */
  identity: string;
  projectId: string;
  status: PromptStatus;
  /** The job of its latest event ('' while unknown). */
  jobId: string;
  /** The job it was submitted to ('' for a create, or a chain's follow-up of a created job). */
  submittedJobId: string;
  kind: PromptEventKind;
  chain: string | null;
  position: number;
  line: number | null;
  /** The text, from its `queued` events ('' when none was written). */
  prompt: string;
  prLink: string | null;
  sentAtMs: number | null;
  finishedAtMs: number | null;
  polls: number;
  error: string | null;
  version: number;
  attempt: number;
  /** Epoch ms of its latest event. */
  recordedAtMs: number;
  /** The earlier batch its state was taken from ('' when this batch did the work, or for events from before it was recorded). */
  sentBy: string;
  /** The agent job as last observed before the latest send (JSON of status, prLink, archivedAt); '' when unknown. */
  seenBefore: string;
  /** The row's key (query rows), '' for file rows. */
  key: string;
}

export interface LedgerQuery {
  /** Every prompt of this batch. */
  batchId?: string;
  /** Prompts with these identities (any batch). */
  identities?: readonly string[];
  /** Prompts with these ids (any batch). */
  promptIds?: readonly string[];
}

interface Row {
  l_batch_id: string;
  l_prompt_id: string;
  l_identity: string;
  l_project_id: string;
  l_status: PromptStatus;
  l_job_id: string;
  l_submitted_job_id: string;
  l_kind: PromptEventKind;
  l_chain: string | null;
  l_position: number | string;
  l_line: number | string | null;
  l_prompt: string;
  l_pr_link: string;
  l_sent_at: number | string;
  l_finished_at: number | string;
  l_polls: number | string;
  l_error: string;
  l_version: number | string;
  l_attempt: number | string;
  l_recorded_at: number | string;
  l_sent_by: string;
  l_seen_before: string;
  l_key: string;
}

/** Latest ledger state of the prompts the query names; none when it names nothing. */
export async function readPromptLedger(wh: Warehouse, query: LedgerQuery): Promise<LedgerEntry[]> {
  const filters: string[] = [];
  if (query.batchId !== undefined) filters.push('batch_id = {batchId:String}');
  if (query.identities?.length) filters.push('identity IN {identities:Array(String)}');
  if (query.promptIds?.length) filters.push('prompt_id IN {promptIds:Array(String)}');
  if (filters.length === 0) return [];
  // Output names carry `l_`: ClickHouse aliases are global, and a column's own name would shadow
  // it in WHERE and in the other aggregates. argMax skips NULLs: nullable columns are read
  // through ifNull, so the latest event's value wins.
  const order = '(version, recorded_at)';
  const rows = await selectRows<Row>(
    wh,
    `SELECT
       batch_id AS l_batch_id,
       prompt_id AS l_prompt_id,
       max(identity) AS l_identity,
       any(project_id) AS l_project_id,
       argMax(status, ${order}) AS l_status,
       argMax(job_id, ${order}) AS l_job_id,
       argMinIf(job_id, ${order}, status = 'queued') AS l_submitted_job_id,
       any(kind) AS l_kind,
       any(chain) AS l_chain,
       any(position) AS l_position,
       any(line) AS l_line,
       argMaxIf(prompt, ${order}, prompt != '') AS l_prompt,
       argMax(ifNull(pr_link, ''), ${order}) AS l_pr_link,
       argMax(ifNull(toUnixTimestamp64Milli(sent_at), 0), ${order}) AS l_sent_at,
       argMax(ifNull(toUnixTimestamp64Milli(finished_at), 0), ${order}) AS l_finished_at,
       argMax(polls, ${order}) AS l_polls,
       argMax(ifNull(error, ''), ${order}) AS l_error,
       max(version) AS l_version,
       argMax(attempt, ${order}) AS l_attempt,
       toUnixTimestamp64Milli(max(recorded_at)) AS l_recorded_at,
       argMax(sent_by, ${order}) AS l_sent_by,
       argMaxIf(seen_before, ${order}, seen_before != '') AS l_seen_before,
       max(key) AS l_key
     FROM ${tableName(wh, 'prompt_events')}
     WHERE ${filters.join(' OR ')}
     GROUP BY batch_id, prompt_id
     ORDER BY l_batch_id, l_position`,
    { batchId: query.batchId ?? '', identities: [...(query.identities ?? [])], promptIds: [...(query.promptIds ?? [])] },
  );
  const ms = (v: number | string) => (Number(v) > 0 ? Number(v) : null);
  return rows.map((r) => ({
    batchId: r.l_batch_id,
    promptId: r.l_prompt_id,
    identity: r.l_identity,
    projectId: r.l_project_id,
    status: r.l_status,
    jobId: r.l_job_id,
    submittedJobId: r.l_submitted_job_id,
    kind: r.l_kind,
    chain: r.l_chain,
    position: Number(r.l_position),
    line: r.l_line === null ? null : Number(r.l_line),
    prompt: r.l_prompt,
    prLink: r.l_pr_link || null,
    sentAtMs: ms(r.l_sent_at),
    finishedAtMs: ms(r.l_finished_at),
    polls: Number(r.l_polls),
    error: r.l_error || null,
    version: Number(r.l_version),
    attempt: Number(r.l_attempt),
    recordedAtMs: Number(r.l_recorded_at),
    sentBy: r.l_sent_by,
    seenBefore: r.l_seen_before,
    key: r.l_key,
  }));
}

/**
 * Read-only SQL (for the CLI's warehouse reads, which take no parameters): how many ledger events
 * the batch has. None means the batch was never started on this warehouse.
 */
export function batchEventCountSql(batchId: string): string {
  return `SELECT count() AS n FROM prompt_events WHERE batch_id = ${stringLiteral(batchId)}`;
}
