/** `mintpipe prompts status`: counts by status of a batch, its chains, what did not complete. */
import type { Command } from 'commander';
import { whenMissing } from '../batch-lookup.js';
import { writeJson } from '../follow-batch.js';
import { checkFormat, parseBatchId } from '../prompts-args.js';
import { loadPromptsModules } from '../prompts-modules.js';

export function register(prompts: Command): void {
  prompts
    .command('status')
    .description('counts by status of a batch, with its chains, the prompts that did not complete and the pull requests (--prompts: every prompt)')
    .argument('<batch>', 'batch id printed by `prompts send`')
    .option('--format <format>', 'output: text or json', 'text')
    .option('--prompts', 'also list every prompt (kind, status, job, when sent, pull request)')
    .action(async (batch: string, flags: { format: string; prompts?: boolean }) => {
      checkFormat(flags.format);
      const batchId = parseBatchId(batch);
      const { batchStatus, formatBatchReport, loadContext, withRuntime } = await loadPromptsModules();
      await withRuntime(loadContext({ oneShot: true }), async (runtime) => {
        const status = await batchStatus(runtime.redis, runtime.config.queuePrefix, batchId, { prompts: true }).catch(whenMissing(batchId));
        if (flags.format === 'json') {
          const { prompts: all, ...rest } = status;
          writeJson({ ...rest, heldPrompts: (all ?? []).filter((p) => p.held), ...(flags.prompts ? { prompts: all } : {}) });
        } else process.stdout.write(`${formatBatchReport(status, { everyPrompt: flags.prompts === true })}\n`);
      });
    });
}
