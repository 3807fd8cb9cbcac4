/**
 * `mintpipe prompts send`: submit a prompt file (or a query's rows) as a batch, and with `--wait`
 * follow it to the end. Exit 2 for any bad line (the good lines are still enqueued).
 */
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { inertLine } from '../../inert-text.js';
import { QUEUE_NAMES } from '../../queue/queue-names.js';
import { follow, report, writeJson } from '../follow-batch.js';
import { checkFormat } from '../prompts-args.js';
import type { FromQueryFlags } from '../prompts-from-query.js';
import { loadPromptsModules } from '../prompts-modules.js';
import { checkPromptsHandOver } from '../prompts-workers.js';
import { hintWithoutWorkers } from '../worker-hint.js';

interface SendFlags {
  wait?: boolean;
  format: string;
  force?: boolean;
  allowCreate?: boolean;
}

export function register(prompts: Command): void {
  prompts
    .command('send')
    .description('enqueue a JSONL or CSV file of prompts (projectId, prompt; jobId, chain) as a batch')
    .argument('[file]', 'prompt file: .jsonl (one object per line) or .csv (header projectId,jobId,prompt[,chain])')
    .option('--from-query <sql>', 'prompt rows from one read-only query (columns projectId, prompt; jobId, chain, key)')
    .option('--from-query-file <file>', 'the same, the query read from a file')
    .option('--dedupe-days <n>', 'with a query: a row whose key was sent within this many days is not sent again', '14')
    .option('--dry-run', 'with a query: print the batch that would be sent, send nothing')
    .option('--wait', 'follow the batch to the end; exit 0 only when every prompt was delivered and its outcome observed')
    .option('--format <format>', 'output: text or json', 'text')
    .option('--force', 'submit as a new batch even when this file was submitted before')
    .option('--allow-create', 'a row without jobId starts a new agent job (a create cannot be undone); rows sharing its chain follow up on that job')
    .action(async (file: string | undefined, flags: SendFlags & FromQueryFlags, command: Command) => {
      checkFormat(flags.format);
      const fromQuery = flags.fromQuery !== undefined || flags.fromQueryFile !== undefined;
      if (fromQuery === (file !== undefined)) throw new UsageError('prompts send: give a prompt file or --from-query/--from-query-file (one of them)');
      if (!fromQuery && flags.dryRun) throw new UsageError('prompts send: --dry-run goes with --from-query (a file is printed by reading it)');
      if (!fromQuery && command.getOptionValueSource('dedupeDays') === 'cli') {
        throw new UsageError('prompts send: --dedupe-days goes with --from-query (a file sent before is not sent again unless --force)');
      }
      // A query's rows: their own module (cli/prompts-from-query.ts).
      process.exitCode = fromQuery ? await (await import('../prompts-from-query.js')).runSendFromQuery(flags) : await runSend(file!, flags);
    });
}

export async function runSend(file: string, flags: SendFlags): Promise<number> {
  checkFormat(flags.format);
  const { allDelivered, batchStatus, loadContext, problemLines, readPromptFile, submitBatch, withRuntime } = await loadPromptsModules();
  const context = loadContext({ oneShot: true });
  const parsed = await readPromptFile(file, { maxPromptBytes: context.config.prompts.maxPromptBytes }, { allowCreate: flags.allowCreate });
  for (const line of problemLines(parsed.problems, (n) => `${file}:${n}`)) process.stderr.write(`${line}\n`);
  const badLines = parsed.problems.length;
  if (parsed.prompts.length === 0) {
    process.stderr.write(`${inertLine(file)}: no good prompts (${badLines} bad line${badLines === 1 ? '' : 's'}); nothing enqueued\n`);
    if (flags.format === 'json') writeJson({ batchId: null, total: 0, added: 0, alreadySubmitted: 0, badLines: parsed.problems });
    return 2;
  }
  const inputCode = badLines > 0 ? 2 : 0;
  return withRuntime(context, async (runtime) => {
    await checkPromptsHandOver(runtime);
    const queue = runtime.queue(QUEUE_NAMES.prompts);
    // Fail before enqueuing when this process would have to do the work and cannot.
    if (flags.wait && !(await runtime.hasWorkers(QUEUE_NAMES.prompts))) runtime.client();
    const submitted = await submitBatch(
      { redis: runtime.redis, queue, prefix: runtime.config.queuePrefix },
      parsed.prompts.map(({ projectId, jobId, prompt, chain, line }) => ({ projectId, jobId, prompt, chain, line })),
      { force: flags.force, source: file, allowCreate: flags.allowCreate, upstream: await (await import('../shell-upstream.js')).shellUpstream(runtime) },
    );
    const header = {
      batchId: submitted.batchId,
      total: submitted.total,
      added: submitted.added,
      alreadySubmitted: submitted.existing,
      badLines: parsed.problems,
    };
    const summary = `batch ${submitted.batchId}: ${submitted.total} prompt(s), ${submitted.added} new, ${submitted.existing} already submitted${badLines ? `, ${badLines} bad line(s) skipped` : ''}`;
    const nothingNew = submitted.added === 0 ? ' — nothing new enqueued (use --force to submit again as a new batch)' : '';
    if (!flags.wait) {
      if (submitted.added > 0) await hintWithoutWorkers(runtime, QUEUE_NAMES.prompts, 'the batch runs');
      if (flags.format === 'json') {
        const status = await batchStatus(runtime.redis, runtime.config.queuePrefix, submitted.batchId, { prompts: true });
        writeJson({ ...header, byStatus: status.byStatus, prompts: status.prompts });
      } else process.stdout.write(`${summary}${nothingNew}\n`);
      return inputCode;
    }
    process.stderr.write(`${summary}${nothingNew}\n`);
    const final = await follow(runtime, submitted.batchId);
    await report(final, flags.format, header);
    return inputCode || (allDelivered(final) ? 0 : 1);
  });
}
