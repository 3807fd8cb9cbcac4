/** Text views of a batch for the CLI: a one-line progress summary and the status report. */
import { nonZeroCounts, type BatchStatus, type PromptSummary } from './batch-status.js';
import { isDelivered } from './prompt-status.js';

/** `37/100 final · completed 30, polling 12, queued 51 …` */
export function progressLine(status: BatchStatus): string {
  const counts = nonZeroCounts(status.byStatus).map(([s, n]) => `${s} ${n}`).join(', ');
  return `${status.done}/${status.total} final · ${counts}`;
}

export function failureLine(p: PromptSummary): string {
  return `  ${p.promptId}  #${p.position + 1}  ${p.projectId}/${p.jobId}  ${p.status}${p.error ? `  ${p.error}` : ''}`;
}

/** The report of `prompts status` and of `prompts send --wait` (text). */
export function formatBatchReport(status: BatchStatus): string {
  const lines = [`batch ${status.batchId}${status.source ? ` (${status.source})` : ''}: ${status.total} prompts, ${status.done} final`];
  for (const [s, n] of nonZeroCounts(status.byStatus)) lines.push(`  ${s.padEnd(10)} ${n}`);
  const failures = status.failures ?? [];
  if (failures.length > 0) {
    lines.push(`not completed (${failures.length}):`);
    for (const p of failures) lines.push(failureLine(p));
  }
  return lines.join('\n');
}

/** Every prompt delivered and its agent job's outcome observed (completed, failed or archived). */
export function allDelivered(status: BatchStatus): boolean {
  const prompts = status.prompts ?? [];
  return prompts.length === status.total && prompts.every((p) => p.done && isDelivered(p.status));
}
