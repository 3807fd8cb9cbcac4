/** `mintpipe status`: queues, workers, schedules, budgets and the last window runs (from Redis). */
import type { Command } from 'commander';
import { formatRate } from '../../../config/durations.js';
import { UsageError } from '../../errors.js';
import type { ExportJobData } from '../../export/enqueue.js';
import { ALL_QUEUES, QUEUE_NAMES } from '../../queue/queue-names.js';

export function register(program: Command): void {
  program
    .command('status')
    .description('queues, workers, schedules, budget and the last export runs')
    .option('--format <format>', 'text or json', 'text')
    .action(async (flags: { format: string }) => {
      if (!['text', 'json'].includes(flags.format)) throw new UsageError(`--format: expected text or json, got "${flags.format}"`);
      // Loaded here, not at the top: `--help` and usage errors load only commander.
      const [{ loadContext, withRuntime }, { analyticsBudget }, { listSchedules }] = await Promise.all([
        import('../command-context.js'),
        import('../../queue/request-budget.js'),
        import('../../queue/schedules.js'),
      ]);
      const context = loadContext({ oneShot: true });
      await withRuntime(context, async (runtime) => {
        const queues = [];
        for (const name of ALL_QUEUES) {
          const queue = runtime.queue(name);
          const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed');
          queues.push({ name, workers: await queue.getWorkersCount(), counts });
        }
        const exportQueue = runtime.queue(QUEUE_NAMES.export);
        const schedules = await listSchedules(exportQueue);
        const budget = await analyticsBudget(runtime.redis, runtime.config.queuePrefix, runtime.config.analyticsRate).usage();
        const jobs = await exportQueue.getJobs(['completed', 'failed', 'active', 'delayed'], 0, 50);
        const runs = jobs
          .filter((j) => j.name === 'window')
          .sort((a, b) => (b.finishedOn ?? b.timestamp) - (a.finishedOn ?? a.timestamp))
          .slice(0, 10)
          .map((j) => {
            const d = j.data as ExportJobData;
            const value = j.returnvalue as { rows?: number } | undefined;
            return {
              project: d.projectId,
              window: `${d.dateFrom}..${d.dateTo}`,
              kind: d.kind,
              state: j.finishedOn ? (j.failedReason ? 'failed' : 'completed') : 'in flight',
              rows: value?.rows ?? (j.progress as { rows?: number })?.rows ?? 0,
              finishedAt: j.finishedOn ? new Date(j.finishedOn).toISOString() : null,
              error: j.failedReason ?? null,
            };
          });
        const status = {
          redis: runtime.redisUrl.replace(/\/\/[^@]*@/, '//'),
          analyticsBudget: { rate: formatRate(runtime.config.analyticsRate), usedInWindow: budget.used, pausedForMs: budget.pausedForMs },
          queues,
          schedules: schedules.map((s) => ({ ...s, next: s.next ? new Date(s.next).toISOString() : null })),
          nightlyProjects: runtime.config.export.projects,
          lastRuns: runs,
        };
        if (flags.format === 'json') {
          process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
          return;
        }
        const out: string[] = [];
        out.push(`redis ${status.redis}   analytics budget ${status.analyticsBudget.rate} (used ${budget.used}${budget.pausedForMs ? `, paused ${Math.ceil(budget.pausedForMs / 1000)}s` : ''})`);
        for (const q of queues) {
          const c = q.counts;
          out.push(`queue ${q.name.padEnd(8)} workers ${q.workers}  waiting ${(c.waiting ?? 0) + (c.prioritized ?? 0)}  active ${c.active}  delayed ${c.delayed}  completed ${c.completed}  failed ${c.failed}`);
        }
        if (schedules.length === 0) out.push('schedules: none (run `mintpipe start` to install the nightly schedule)');
        for (const s of status.schedules) out.push(`schedule ${s.id}: "${s.pattern}" ${s.tz ?? 'UTC'} next ${s.next ?? '-'}`);
        out.push(`nightly projects: ${status.nightlyProjects.length ? status.nightlyProjects.join(', ') : 'none (set MINTPIPE_PROJECTS)'}`);
        if (runs.length === 0) out.push('last runs: none');
        for (const r of runs) out.push(`run ${r.project} ${r.window} ${r.kind} ${r.state} ${r.rows} rows${r.error ? ` — ${r.error}` : ''}`);
        process.stdout.write(`${out.join('\n')}\n`);
      });
    });
}
