/** Text views of a batch for the CLI: a one-line progress summary and the status report. */
import { nonZeroCounts, type BatchStatus, type ChainSummary, type PromptSummary } from './batch-status.js';
import { startFailureLine } from './batch-start-failure.js';
import { isDelivered } from './prompt-status.js';
import { inertLine } from '../inert-text.js';

/** Chains listed one per line in a report; more are summed up. */
const CHAIN_LINES = 50;

/** `37/100 final · completed 30, polling 12, queued 51 …` (and how many are held). */
export function progressLine(status: BatchStatus): string {
  const counts = nonZeroCounts(status.byStatus).map(([s, n]) => `${s} ${n}`).join(', ');
  return `${status.done}/${status.total} final · ${counts}${status.held > 0 ? ` · ${status.held} held` : ''}`;
}

/** Where a prompt came from: its line in the file, else its position. */
function where(p: PromptSummary): string {
  return p.line === null ? `#${p.position + 1}` : `line ${p.line}`;
}

/** Chains' agent jobs, for steps that never learned theirs (cancelled or skipped before their send). */
type ChainJobs = ReadonlyMap<string, string>;

function target(p: PromptSummary, chainJobs: ChainJobs = new Map()): string {
  const job = p.jobId || (p.chain !== null ? chainJobs.get(p.chain) : undefined) || (p.kind === 'create' ? '(new job)' : '(chain job)');
  return `${p.projectId}/${job}${p.chain === null ? '' : ` chain ${JSON.stringify(p.chain)}`}`;
}

/** `  <prompt id>  line 3  acme/job-7 chain "docs"`: how every prompt line of the report starts. */
function promptHead(p: PromptSummary, chainJobs?: ChainJobs): string {
  return `  ${p.promptId}  ${where(p)}  ${target(p, chainJobs)}`;
}

function kindAndStatus(p: PromptSummary): string {
  return `${p.kind === 'create' ? 'create ' : ''}${p.status}`;
}

export function failureLine(p: PromptSummary, chainJobs?: ChainJobs): string {
  return `${promptHead(p, chainJobs)}  ${kindAndStatus(p)}${p.sentAt ? `  sent ${p.sentAt}` : ''}${p.error ? `  ${p.error}` : ''}`;
}

function chainLine(c: ChainSummary): string {
  const links = c.prLinks.length > 0 ? `  ${c.prLinks.join(' ')}` : '';
  return `  ${JSON.stringify(c.chain)}  ${c.projectId}/${c.jobId ?? '(no job yet)'}  ${c.completed}/${c.steps} completed  ${c.state}${links}`;
}

function promptLine(p: PromptSummary, chainJobs: ChainJobs): string {
  const sent = p.sentAt ? `  sent ${p.sentAt}${p.sentBy ? ` by batch ${p.sentBy}` : ''}` : '';
  return `${promptHead(p, chainJobs)}  ${kindAndStatus(p)}${p.held ? ' (held)' : ''}${sent}${p.prLink ? `  ${p.prLink}` : ''}`;
}

/** The report of `prompts status` and of `prompts send --wait` (text); `everyPrompt` lists each prompt too. */
export function formatBatchReport(status: BatchStatus, options: { everyPrompt?: boolean } = {}): string {
  const lines = [`batch ${status.batchId}${status.source ? ` (${status.source})` : ''}: ${status.total} prompt${status.total === 1 ? '' : 's'}, ${status.done} final`];
  if (status.startFailure) lines.push(`${startFailureLine(status.batchId, status.startFailure.reason, status.byStatus.queued)} (at ${status.startFailure.at})`);
  for (const [s, n] of nonZeroCounts(status.byStatus)) lines.push(`  ${s.padEnd(10)} ${n}`);
  const chains = status.chains ?? [];
  const chainJobs: ChainJobs = new Map(chains.flatMap((c) => (c.jobId ? [[c.chain, c.jobId] as const] : [])));
  if (chains.length > 0) {
    lines.push(`chains (${chains.length}):`);
    for (const c of chains.slice(0, CHAIN_LINES)) lines.push(chainLine(c));
    if (chains.length > CHAIN_LINES) lines.push(`  … ${chains.length - CHAIN_LINES} more (--format json lists all)`);
  }
  const failures = status.failures ?? [];
  if (failures.length > 0) {
    lines.push(`not completed (${failures.length}):`);
    for (const p of failures) lines.push(failureLine(p, chainJobs));
  }
  const held = (status.prompts ?? []).filter((p) => p.held);
  if (held.length > 0) {
    lines.push(`held (${held.length}), queued behind an ambiguous step of their chain; \`prompts resend ${status.batchId} --prompt ID\` sends that step again, \`prompts cancel ${status.batchId}\` ends them:`);
    for (const p of held) lines.push(`${promptHead(p, chainJobs)}  held behind ${p.heldBehind ?? '(unknown)'}`);
  }
  const sentBefore = (status.prompts ?? []).filter((p) => p.sentBy !== null);
  if (sentBefore.length > 0) {
    lines.push(
      `sent before (${sentBefore.length}): the ledger has these rows from an earlier batch, which sent or settled them, so they were not sent again (\`prompts send --force FILE\` sends every row again):`,
    );
    for (const p of sentBefore.slice(0, CHAIN_LINES)) {
      lines.push(`  ${where(p)}  ${target(p, chainJobs)}  ${p.status}  ${p.sentAt ? `sent by batch ${p.sentBy} at ${p.sentAt}` : `as batch ${p.sentBy} recorded it (never sent)`}`);
    }
    if (sentBefore.length > CHAIN_LINES) lines.push(`  … ${sentBefore.length - CHAIN_LINES} more (--prompts --format json lists all, with sentBy)`);
  }
  const links = (status.prompts ?? []).filter((p) => p.prLink && p.chain === null);
  if (links.length > 0) {
    lines.push(`pull requests (${links.length}):`);
    for (const p of links) lines.push(`  ${where(p)}  ${p.projectId}/${p.jobId}  ${p.prLink}`);
  }
  if (options.everyPrompt && status.prompts) {
    lines.push(`prompts (${status.prompts.length}):`);
    for (const p of status.prompts) lines.push(promptLine(p, chainJobs));
  }
  // Errors, links and the source name come from upstream and the user's files: shown inert.
  return lines.map(inertLine).join('\n');
}

/** Every prompt delivered and its agent job's outcome observed (completed, failed or archived). */
export function allDelivered(status: BatchStatus): boolean {
  const prompts = status.prompts ?? [];
  return prompts.length === status.total && prompts.every((p) => p.done && isDelivered(p.status));
}
