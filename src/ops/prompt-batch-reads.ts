/**
 * Read-only summaries of prompt batches from the `prompt_outcomes` view: counts by status, the PR
 * links agent jobs opened, the prompts that need a look (failed, timed out, ambiguous, rejected),
 * and each chain's progress.
 */
import { tableName, type PromptStatus } from '../warehouse/index.js';
import type { WarehouseReader } from './warehouse-reader.js';

import { PROMPT_STATUSES } from '../prompts/prompt-status.js';

export { PROMPT_STATUSES };

/** Statuses a person should look at: the prompt did not end as asked, or its fate is unknown. */
export const PROBLEM_STATUSES: readonly PromptStatus[] = ['failed', 'timed_out', 'ambiguous', 'rejected'];

export interface PromptRef {
  promptId: string;
  projectId: string;
  jobId: string;
  status: PromptStatus;
}

/** One chain of a batch: its steps, how many completed, where it stands, and its pull requests. */
export interface ChainProgress {
  chain: string;
  projectId: string;
  /** The chain's agent job; '' while its create has not answered. */
  jobId: string;
  steps: number;
  completed: number;
  /** Steps not final yet (queued, held, sending, polling). */
  open: number;
  /** Steps that ended other than completed (the first of them stopped or holds the chain). */
  notCompleted: number;
  prLinks: string[];
}

export interface PromptBatchSummary {
  batchId: string;
  prompts: number;
  byStatus: Record<PromptStatus, number>;
  /** ISO 8601; null when nothing of the batch was sent yet. */
  firstSentAt: string | null;
  /** ISO 8601 of the latest send or finish; null when nothing was sent yet. */
  lastActivityAt: string | null;
  prLinks: Array<PromptRef & { prLink: string }>;
  problems: Array<PromptRef & { error: string | null }>;
  /** The batch's chains (at most `detailsPerBatch`), by name. */
  chains: ChainProgress[];
}

export interface PromptBatchOptions {
  /** Batches returned, most recently active first (batches with nothing sent yet come first). */
  limit: number;
  /** PR links and problems listed per batch. @default 50 */
  detailsPerBatch?: number;
}

type BatchRow = { batch_id: string; prompts: number | string; first_sent_at: string | null; last_activity_at: string | null } & Record<
  `n_${PromptStatus}`,
  number | string
>;

interface DetailRow {
  batch_id: string;
  prompt_id: string;
  project_id: string;
  job_id: string;
  status: PromptStatus;
  pr_link: string | null;
  error: string | null;
}

/** DateTime64 text (`2024-05-01 12:00:00.000`, UTC) as ISO 8601. */
function isoOrNull(value: string | null): string | null {
  return value === null ? null : `${value.replace(' ', 'T')}Z`;
}

export async function promptBatches(wh: WarehouseReader, options: PromptBatchOptions): Promise<PromptBatchSummary[]> {
  const view = tableName(wh, 'prompt_outcomes');
  const statusCounts = PROMPT_STATUSES.map((s) => `countIf(status = '${s}') AS n_${s}`).join(', ');
  const batches = await wh.select<BatchRow>(
    `SELECT batch_id, count() AS prompts, ${statusCounts},
       min(sent_at) AS first_sent_at,
       max(coalesce(finished_at, sent_at)) AS last_activity_at
     FROM ${view} GROUP BY batch_id
     ORDER BY last_activity_at DESC NULLS FIRST, batch_id DESC LIMIT {limit:UInt32}`,
    { limit: options.limit },
  );
  if (batches.length === 0) return [];
  const details = await wh.select<DetailRow>(
    `SELECT batch_id, prompt_id, project_id, job_id, status, pr_link, error FROM ${view}
     WHERE batch_id IN {batches:Array(String)}
       AND ((pr_link IS NOT NULL AND pr_link != '') OR status IN {problems:Array(String)})
     ORDER BY batch_id, prompt_id LIMIT {perBatch:UInt32} BY batch_id`,
    { batches: batches.map((b) => b.batch_id), problems: PROBLEM_STATUSES, perBatch: options.detailsPerBatch ?? 50 },
  );
  const chainRows = await wh.select<{
    batch_id: string;
    chain: string;
    project_id: string;
    job_id: string;
    steps: number | string;
    completed: number | string;
    open: number | string;
    pr_links: string[];
  }>(
    `SELECT batch_id, chain, any(project_id) AS project_id, anyIf(job_id, job_id != '') AS job_id, count() AS steps,
       countIf(status = 'completed') AS completed,
       countIf(status IN ('queued', 'sending', 'polling')) AS open,
       groupArrayIf(pr_link, pr_link IS NOT NULL AND pr_link != '') AS pr_links
     FROM ${view}
     WHERE batch_id IN {batches:Array(String)} AND chain IS NOT NULL
     GROUP BY batch_id, chain ORDER BY batch_id, chain LIMIT {perBatch:UInt32} BY batch_id`,
    { batches: batches.map((b) => b.batch_id), perBatch: options.detailsPerBatch ?? 50 },
  );
  return batches.map((b) => {
    const byStatus = Object.fromEntries(PROMPT_STATUSES.map((s) => [s, Number(b[`n_${s}`])])) as Record<PromptStatus, number>;
    const mine = details.filter((d) => d.batch_id === b.batch_id);
    return {
      batchId: b.batch_id,
      prompts: Number(b.prompts),
      byStatus,
      firstSentAt: isoOrNull(b.first_sent_at),
      lastActivityAt: isoOrNull(b.last_activity_at),
      prLinks: mine
        .filter((d) => d.pr_link)
        .map((d) => ({ promptId: d.prompt_id, projectId: d.project_id, jobId: d.job_id, status: d.status, prLink: d.pr_link as string })),
      problems: mine
        .filter((d) => PROBLEM_STATUSES.includes(d.status))
        .map((d) => ({ promptId: d.prompt_id, projectId: d.project_id, jobId: d.job_id, status: d.status, error: d.error })),
      chains: chainRows
        .filter((c) => c.batch_id === b.batch_id)
        .map((c) => {
          const steps = Number(c.steps);
          const completed = Number(c.completed);
          const open = Number(c.open);
          return { chain: c.chain, projectId: c.project_id, jobId: c.job_id, steps, completed, open, notCompleted: steps - completed - open, prLinks: c.pr_links };
        }),
    };
  });
}

/** Prompts per current status across all batches (for the metrics gauge). */
export async function promptStatusCounts(wh: WarehouseReader): Promise<Map<string, number>> {
  const rows = await wh.select<{ status: string; n: number | string }>(
    `SELECT status, count() AS n FROM ${tableName(wh, 'prompt_outcomes')} GROUP BY status`,
  );
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}
