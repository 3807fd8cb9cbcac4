/**
 * `mintpipe prompts recover`: rebuild a batch Redis lost from the ledger (never sent: sent; sent:
 * polled; unknown: ambiguous), or start a batch Redis still has again.
 */
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { QUEUE_NAMES } from '../../queue/queue-names.js';
import { ledgerHas, UNKNOWN_BATCH } from '../batch-lookup.js';
import { ensurePromptWorkers, follow, report, writeJson } from '../follow-batch.js';
import { checkFormat, parseBatchId } from '../prompts-args.js';
import { loadPromptsModules } from '../prompts-modules.js';
import { checkPromptsHandOver } from '../prompts-workers.js';
import { hintWithoutWorkers } from '../worker-hint.js';

export function register(prompts: Command): void {
  prompts
    .command('recover')
    .description('rebuild a batch that Redis lost (restarted without persistence) from the ledger: never sent is sent, sent is polled, unknown ends ambiguous')
    .argument('<batch>', 'batch id printed by `prompts send`')
    .option('--wait', 'follow the batch to the end; exit 0 only when every prompt was delivered and its outcome observed')
    .option('--format <format>', 'output: text or json', 'text')
    .action(async (batch: string, flags: { wait?: boolean; format: string }) => {
      process.exitCode = await runRecover(batch, flags);
    });
}

async function runRecover(batch: string, flags: { wait?: boolean; format: string }): Promise<number> {
  checkFormat(flags.format);
  const batchId = parseBatchId(batch);
  const { allDelivered, loadContext, requestRecovery, waitForRecovery, withRuntime } = await loadPromptsModules();
  return withRuntime(loadContext({ oneShot: true }), async (runtime) => {
    await checkPromptsHandOver(runtime);
    const deps = { redis: runtime.redis, queue: runtime.queue(QUEUE_NAMES.prompts), prefix: runtime.config.queuePrefix };
    if (flags.wait && !(await runtime.hasWorkers(QUEUE_NAMES.prompts))) runtime.client();
    const request = await requestRecovery(deps, batchId, {
      // A rebuild of a batch the ledger does not know could only fail. An unreadable ledger is the
      // worker's to read: its recover job says what it finds.
      beforeRebuild: async () => {
        if ((await ledgerHas(batchId)) === false) throw new UsageError(`batch ${batchId}: nothing to recover: ${UNKNOWN_BATCH}`);
      },
    });
    const line = request.inRedis
      ? `batch ${batchId}: still in Redis; started again (each agent job's next prompt is looked at again)`
      : `batch ${batchId}: recovery queued — a worker rebuilds it from the ledger: what was never sent is sent, what was sent is polled to its outcome or ends ambiguous`;
    if (!flags.wait) {
      if (flags.format === 'json') writeJson(request);
      else process.stdout.write(`${line}\n`);
      if (!request.inRedis) await hintWithoutWorkers(runtime, QUEUE_NAMES.prompts, 'the batch runs');
      return 0;
    }
    process.stderr.write(`${line}\n`);
    const started = await ensurePromptWorkers(runtime);
    await waitForRecovery(deps, request);
    const final = await follow(runtime, batchId, started);
    await report(final, flags.format, { recovered: !request.inRedis });
    return allDelivered(final) ? 0 : 1;
  });
}
