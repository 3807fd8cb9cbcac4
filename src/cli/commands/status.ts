/**
 * `mintpipe status`: the running installation (the settings its processes publish in Redis, or
 * those this shell would use when nothing runs), queues, schedules, the budget, each dataset's
 * freshness and findings (from the warehouse), and the last window runs.
 */
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import type { EngineOptions, Warehouse } from '../../warehouse/index.js';
import { inertLines } from '../../inert-text.js';

export function register(program: Command): void {
  program
    .command('status')
    .description('the running installation, queues, schedules, budget, datasets (last complete window, lag, findings) and last runs')
    .option('--format <format>', 'text or json', 'text')
    .action(async (flags: { format: string }) => {
      if (!['text', 'json'].includes(flags.format)) throw new UsageError(`--format: expected text or json, got "${flags.format}"`);
      // Loaded here, not at the top: `--help` and usage errors load only commander.
      const [{ loadContext, withRuntime }, { gatherStatus }, { statusText }, { openWarehouse, WarehouseLockedError }, { afterOtherCommand, startingHolder }] = await Promise.all([
        import('../command-context.js'),
        import('../../ops/status-report.js'),
        import('../../ops/status-text.js'),
        import('../../warehouse/index.js'),
        import('../read-warehouse.js'),
      ]);
      const context = loadContext({ oneShot: true, usesApi: false });
      await withRuntime(context, async (runtime) => {
        const { checkWarehouse } = await import('../hand-over-check.js');
        await checkWarehouse(runtime.redis, runtime.config);
        // A process that serves a gateway is read through it (openReader); one that holds the engine
        // without one is another one-shot command, which ends soon: status queues for it, at most
        // as long as `query` does, and then says the warehouse was not read.
        // A start or worker still starting up holds the engine for good: status reads through its
        // gateway once it serves one; one that did not in that time is not waited for again.
        const starting = await startingHolder(runtime.config, 'status');
        const open = (lockWait?: EngineOptions['lockWait']) => openWarehouse({ ...runtime.config.clickhouse, dataDir: runtime.config.dataDir, logger: runtime.logger, lockWait });
        const queue = (err: unknown) => (err instanceof WarehouseLockedError && starting !== 'silent' ? afterOtherCommand(open, 'status') : Promise.reject(err));
        const openWaiting = () => open().catch(queue);
        let opened: Promise<Warehouse> | undefined;
        const source = {
          queue: runtime.queue.bind(runtime),
          redis: runtime.redis,
          redisWhere: runtime.redisWhere,
          config: runtime.config,
          warehouse: () => (opened ??= openWaiting()),
        };
        try {
          const status = await gatherStatus(source);
          // JSON is data (escaped by JSON itself); the text is for a terminal: shown inert.
          process.stdout.write(flags.format === 'json' ? `${JSON.stringify(status, null, 2)}\n` : inertLines(statusText(status)));
        } finally {
          await (await opened?.catch(() => undefined))?.close();
        }
      });
    });
}
