/** `mintpipe prompts cancel`: end the prompts of a batch that were never sent as cancelled. */
import type { Command } from 'commander';
import { QUEUE_NAMES } from '../../queue/queue-names.js';
import { whenMissing } from '../batch-lookup.js';
import { writeJson } from '../follow-batch.js';
import { checkFormat, parseBatchId } from '../prompts-args.js';
import { loadPromptsModules } from '../prompts-modules.js';
import { hintWithoutWorkers } from '../worker-hint.js';

export function register(prompts: Command): void {
  prompts
    .command('cancel')
    .description('end the prompts of a batch that were never sent as cancelled (held ones included); what is in flight finishes')
    .argument('<batch>', 'batch id')
    .option('--format <format>', 'output: text or json', 'text')
    .action(async (batch: string, flags: { format: string }) => {
      checkFormat(flags.format);
      const batchId = parseBatchId(batch);
      const { cancelBatch, loadContext, withRuntime } = await loadPromptsModules();
      await withRuntime(loadContext({ oneShot: true }), async (runtime) => {
        const queue = runtime.queue(QUEUE_NAMES.prompts);
        const result = await cancelBatch({ redis: runtime.redis, queue, prefix: runtime.config.queuePrefix }, batchId).catch(whenMissing(batchId));
        if (flags.format === 'json') writeJson(result);
        else process.stdout.write(`batch ${batchId}: ${result.cancelled.length} prompt(s) cancelled, ${result.inFlight.length} in flight left to finish\n`);
        // Redis has the cancellations now; the batch job writes them to the warehouse.
        if (result.cancelled.length > 0) await hintWithoutWorkers(runtime, QUEUE_NAMES.prompts, 'the warehouse (prompt_outcomes) records the cancellations', false);
      });
    });
}
