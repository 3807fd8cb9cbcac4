/**
 * `mintpipe prompts resend`: send again, as new attempts, prompts of a batch whose delivery is
 * unknown (ambiguous), only on explicit request (--ambiguous or --prompt ID).
 */
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import type { ResendResult } from '../../prompts/resend-ambiguous.js';
import { QUEUE_NAMES } from '../../queue/queue-names.js';
import { whenMissing } from '../batch-lookup.js';
import { follow, report, writeJson } from '../follow-batch.js';
import { checkFormat, parseBatchId, parsePromptId } from '../prompts-args.js';
import { loadPromptsModules } from '../prompts-modules.js';
import { checkPromptsHandOver } from '../prompts-workers.js';
import { hintWithoutWorkers } from '../worker-hint.js';

interface ResendFlags {
  ambiguous?: boolean;
  prompt?: string;
  includeReceived?: boolean;
  wait?: boolean;
  format: string;
}

export function register(prompts: Command): void {
  prompts
    .command('resend')
    .description('send again, as new attempts, prompts of a batch whose delivery is unknown (ambiguous)')
    .argument('<batch>', 'batch id')
    .option('--ambiguous', 'resend every ambiguous prompt of the batch')
    .option('--prompt <id>', 'resend this one ambiguous prompt (its held chain then goes on)')
    .option('--include-received', 'with --ambiguous: also resend prompts most likely received (their agent job changed after the send) or whose receipt cannot be checked (creates)')
    .option('--wait', 'follow the batch to the end')
    .option('--format <format>', 'output: text or json', 'text')
    .action(async (batch: string, flags: ResendFlags) => {
      process.exitCode = await runResend(batch, flags);
    });
}

async function runResend(batch: string, flags: ResendFlags): Promise<number> {
  checkFormat(flags.format);
  const batchId = parseBatchId(batch);
  if (!flags.ambiguous && flags.prompt === undefined) {
    throw new UsageError('prompts resend: --ambiguous or --prompt ID is required (say explicitly that prompts of unknown delivery may be sent twice)');
  }
  if (flags.ambiguous && flags.prompt !== undefined) throw new UsageError('prompts resend: give --ambiguous or --prompt, not both');
  if (flags.includeReceived && !flags.ambiguous) throw new UsageError('prompts resend: --include-received goes with --ambiguous');
  const promptId = flags.prompt === undefined ? undefined : parsePromptId(flags.prompt);
  const { allDelivered, loadContext, resendAmbiguous, withRuntime } = await loadPromptsModules();
  return withRuntime(loadContext({ oneShot: true }), async (runtime) => {
    await checkPromptsHandOver(runtime);
    const queue = runtime.queue(QUEUE_NAMES.prompts);
    const result = await resendAmbiguous({ redis: runtime.redis, queue, prefix: runtime.config.queuePrefix }, batchId, { promptId, includeReceived: flags.includeReceived }).catch(whenMissing(batchId));
    const held = result.released.length > 0 ? `; ${result.released.length} held prompt(s) of their chains go on` : '';
    const nothing =
      result.withheld.length > 0
        ? `nothing resent: ${result.withheld.length} ambiguous prompt(s) flagged below`
        : result.observing.length > 0
        ? `nothing to resend yet: ${result.observing.length} ambiguous prompt(s) still being observed on their agent jobs (resend once they are final)`
        : 'nothing to resend (no ambiguous prompt)';
    const line = result.resent.length === 0 ? `batch ${batchId}: ${nothing}\n` : `batch ${batchId}: ${result.resent.length} ambiguous prompt(s) queued again${held}\n`;
    for (const line of receiptWarnings(result)) process.stderr.write(`${line}\n`);
    if (!flags.wait) {
      if (flags.format === 'json') writeJson(result);
      else process.stdout.write(line);
      if (result.resent.length > 0) await hintWithoutWorkers(runtime, QUEUE_NAMES.prompts, 'the resent prompts go out');
      return 0;
    }
    process.stderr.write(line);
    const final = await follow(runtime, batchId);
    await report(final, flags.format, {});
    return allDelivered(final) ? 0 : 1;
  });
}

/** The warnings of a resend: prompts most likely received, and prompts whose receipt cannot be checked. */
function receiptWarnings(result: ResendResult): string[] {
  const withheld = new Set(result.withheld);
  const fate = (ids: string[]) => {
    const kept = ids.filter((id) => withheld.has(id)).length;
    if (kept === ids.length) return 'not resent (--include-received sends them anyway)';
    return kept === 0 ? 'resent: each may run twice' : `${ids.length - kept} resent (each may run twice), ${kept} not resent`;
  };
  const lines: string[] = [];
  if (result.likelyReceived.length > 0) {
    const ids = result.likelyReceived.map((p) => p.promptId);
    lines.push(`warning: ${ids.length} ambiguous prompt(s) most likely received (their agent job changed after the send), ${fate(ids)}: ${result.likelyReceived.map((p) => `${p.promptId} (${p.seen})`).join('; ')}`);
  }
  if (result.uncheckable.length > 0) {
    const ids = result.uncheckable.map((p) => p.promptId);
    lines.push(`warning: ${ids.length} ambiguous prompt(s) cannot be checked, ${fate(ids)}: ${result.uncheckable.map((p) => `${p.promptId} (${p.why})`).join('; ')}`);
  }
  return lines;
}
