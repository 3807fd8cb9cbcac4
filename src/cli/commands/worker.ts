/** `mintpipe worker`: workers only, until SIGINT/SIGTERM. Scale out by running more. */
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { ALL_QUEUES, parseQueueNames, type QueueName } from '../../queue/queue-names.js';
import { loadContext } from '../command-context.js';
import { runUntilSignal } from '../run-until-signal.js';

export function register(program: Command): void {
  program
    .command('worker')
    .description('run workers for the queues (scale out by running more, sharing one REDIS_URL)')
    .option('--queues <names>', `comma-separated: ${ALL_QUEUES.join(', ')}`, ALL_QUEUES.join(','))
    .action(async (flags: { queues: string }) => {
      let names: QueueName[];
      try {
        names = parseQueueNames(flags.queues);
      } catch (err) {
        throw new UsageError(`--queues: ${(err as Error).message}; expected ${ALL_QUEUES.join(', ')}`);
      }
      if (names.length === 0) throw new UsageError(`--queues: no queue named; expected ${ALL_QUEUES.join(', ')}`);
      const context = loadContext();
      const { Runtime } = await import('../runtime.js');
      const runtime = await Runtime.open(context);
      try {
        await runtime.startWorkers(names);
      } catch (err) {
        await runtime.close();
        throw err;
      }
      process.stderr.write(`mintpipe worker: ${names.join(', ')} (Ctrl-C to stop)\n`);
      await runUntilSignal(runtime);
    });
}
