/**
 * Sends prompt rows that came from a query (`prompts send --from-query`, `triage run`): the keyed
 * rows' dedupe against the ledger, `--dry-run` (the batch printed, nothing sent), then the same
 * submission and following as a prompt file (submitBatch, waitForBatch). Exit codes as `prompts
 * send`: 2 when some rows were bad (the good ones still go), with --wait 1 when a prompt did not
 * end delivered.
 */
import type { LineProblem, PromptLine } from '../prompts/index.js';
import type { PromptStatus } from '../prompts/prompt-status.js';
import { QUEUE_NAMES } from '../queue/queue-names.js';
import type { KeySendRow } from '../warehouse/prompt-key-sends.js';
import type { CommandContext } from './command-context.js';
import { follow, writeJson } from './follow-batch.js';
import { readWarehouse } from './read-warehouse.js';
import { hintWithoutWorkers } from './worker-hint.js';

export interface SendRowsOptions {
  /** What the rows came from, shown by `prompts status` (`query`, `triage feedback-hotspots`). */
  source: string;
  /** Days a key's send keeps the same key from being sent again. */
  dedupeDays: number;
  dryRun?: boolean;
  wait?: boolean;
  format: string;
  force?: boolean;
  allowCreate?: boolean;
  /** Rows refused before (printed by the caller): the exit code is 2 when there are any. */
  badRows: readonly LineProblem[];
  /** Names the command in messages. @default 'prompts' */
  command?: string;
}

export interface SentRows {
  exitCode: number;
  /** The batch submitted (none for a dry run, or when nothing was left to send). */
  batchId?: string;
  /** Prompt ids in the order of `sent`. */
  promptIds: string[];
  sent: PromptLine[];
  skipped: Array<{ row: PromptLine; reason: string }>;
}

export async function sendPromptRows(context: CommandContext, rows: readonly PromptLine[], options: SendRowsOptions): Promise<SentRows> {
  const { dedupeKeys, planChains } = await import('../prompts/index.js');
  const inputCode = options.badRows.length > 0 ? 2 : 0;
  const entries = await keyLedger(rows, options.command ?? 'prompts');
  const { send, skipped, salt } = dedupeKeys(rows, entries, { nowMs: Date.now(), dedupeDays: options.dedupeDays });
  for (const s of skipped) process.stderr.write(`row ${s.row.line}: not sent: ${s.reason}\n`);
  const none = { promptIds: [], sent: [], skipped };
  if (options.dryRun) {
    // Rows that needed --allow-create were refused before; a dry run shows the rest as they would go.
    const plan = planChains(send, { allowCreate: true });
    if (options.format === 'json') writeJson({ dryRun: true, prompts: plan.prompts, skipped: skipped.map((s) => ({ line: s.row.line, key: s.row.key, reason: s.reason })) });
    else process.stdout.write(formatDryRun(plan.prompts, skipped.length));
    return { exitCode: inputCode, ...none };
  }
  if (send.length === 0) {
    process.stderr.write(`nothing to send (${skipped.length} row(s) already sent within ${options.dedupeDays} day(s), ${options.badRows.length} bad)\n`);
    if (options.format === 'json') writeJson({ batchId: null, total: 0, added: 0, skipped: skipped.length });
    return { exitCode: inputCode, ...none };
  }
  const { withRuntime } = await import('./command-context.js');
  return withRuntime(context, async (runtime) => {
    const { submitBatch } = await import('../prompts/index.js');
    if (options.wait && !(await runtime.hasWorkers(QUEUE_NAMES.prompts))) runtime.client();
    const submitted = await submitBatch({ redis: runtime.redis, queue: runtime.queue(QUEUE_NAMES.prompts), prefix: runtime.config.queuePrefix }, send, {
      force: options.force,
      source: options.source,
      allowCreate: options.allowCreate,
      ...(salt === undefined ? {} : { salt }),
      upstream: await (await import('./shell-upstream.js')).shellUpstream(runtime),
    });
    const summary = `batch ${submitted.batchId}: ${submitted.total} prompt(s), ${submitted.added} new, ${submitted.existing} already submitted, ${skipped.length} skipped (sent before)${options.badRows.length ? `, ${options.badRows.length} bad row(s)` : ''}`;
    const result = { batchId: submitted.batchId, promptIds: submitted.promptIds, sent: send, skipped };
    if (!options.wait) {
      if (options.format === 'json') writeJson({ batchId: submitted.batchId, total: submitted.total, added: submitted.added, skipped: skipped.length });
      else process.stdout.write(`${summary}\n`);
      if (submitted.added > 0) await hintWithoutWorkers(runtime, QUEUE_NAMES.prompts, 'the batch runs');
      return { exitCode: inputCode, ...result };
    }
    process.stderr.write(`${summary}\n`);
    // The follower of every prompts --wait: gives up when no worker serves the queue for the grace period.
    const final = await follow(runtime, submitted.batchId);
    const { allDelivered, formatBatchReport } = await import('../prompts/index.js');
    if (options.format === 'json') writeJson({ batchId: final.batchId, total: final.total, byStatus: final.byStatus, prompts: final.prompts, skipped: skipped.length });
    else process.stdout.write(`${formatBatchReport(final)}\n`);
    return { exitCode: inputCode || (allDelivered(final) ? 0 : 1), ...result };
  });
}

/** The ledger's earlier prompts of the rows' keys (none without keys). */
async function keyLedger(rows: readonly PromptLine[], command: string) {
  const keys = [...new Set(rows.flatMap((r) => (r.key === undefined ? [] : [r.key])))];
  if (keys.length === 0) return [];
  const { keySendsSql } = await import('../warehouse/prompt-key-sends.js');
  const result = await readWarehouse(keySendsSql(keys), { timeoutMs: 30_000, maxRows: 1_000_000 }, command);
  return (result.rows as unknown as KeySendRow[]).map((r) => {
    const sent = Number(r.k_sent_ms);
    return {
      projectId: r.k_project_id,
      key: r.k_key,
      batchId: r.k_batch_id,
      promptId: r.k_prompt_id,
      sentAtMs: sent > 0 ? sent : null,
      status: r.k_status as PromptStatus,
      lastAtMs: Number(r.k_last_ms),
    };
  });
}

function formatDryRun(prompts: ReadonlyArray<PromptLine & { kind: string }>, skipped: number): string {
  const lines = [`dry run: ${prompts.length} prompt(s) would be sent, ${skipped} skipped (sent before); nothing sent`];
  for (const p of prompts) {
    const where = p.kind === 'create' ? 'new agent job' : `job ${p.jobId ?? `(chain ${p.chain})`}`;
    lines.push(`--- row ${p.line}: project ${p.projectId}, ${where}${p.key === undefined ? '' : `, key ${p.key}`}${p.chain === undefined ? '' : `, chain ${p.chain}`}`);
    lines.push(p.prompt);
  }
  return `${lines.join('\n')}\n`;
}
