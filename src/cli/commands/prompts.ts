/**
 * `mintpipe prompts send|status|resend|cancel|recover`: submit a prompt file as a batch, follow
 * it, resend ambiguous prompts on request, cancel what was never sent, rebuild a batch Redis lost
 * from the ledger. Submitting and following need only Redis, so they work with workers running
 * elsewhere (the worker that starts a batch consults the ledger); `--wait` starts in-process
 * workers only when none are connected.
 *
 * Exit codes: 2 for bad usage or any bad line (the good lines are still enqueued); with --wait,
 * 1 when a prompt did not end delivered (rejected, timed_out, ambiguous, skipped, cancelled, or
 * held behind an ambiguous step); 1 when Redis lost the batch (the message names `recover`);
 * 2 for a batch neither Redis nor the ledger knows (a mistyped id); else 0.
 */
import type { Command } from 'commander';
import { MintpipeError, UsageError } from '../../errors.js';
import type { BatchStatus } from '../../prompts/index.js';
import type { ResendResult } from '../../prompts/resend-ambiguous.js';
import type { WaitOptions } from '../../prompts/wait-for-batch.js';
import { isBatchId } from '../../prompts/batch-id-format.js';
import { QUEUE_NAMES } from '../../queue/queue-names.js';
import type { FromQueryFlags } from '../prompts-from-query.js';
import type { Runtime } from '../runtime.js';
import { onStopSignal } from '../stop-signals.js';

/** What the subcommands run, loaded on use: `--help` and usage errors load only commander. */
async function load() {
  const [prompts, context, progress] = await Promise.all([import('../../prompts/index.js'), import('../command-context.js'), import('../progress-display.js')]);
  return { ...prompts, ...context, ...progress };
}

const FORMATS = ['text', 'json'];

interface SendFlags {
  wait?: boolean;
  format: string;
  force?: boolean;
  allowCreate?: boolean;
}

export function register(program: Command): void {
  const prompts = program.command('prompts').description('queued batch prompting of agent jobs');
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
    .action(async (file: string | undefined, flags: SendFlags & FromQueryFlags) => {
      checkFormat(flags.format);
      const fromQuery = flags.fromQuery !== undefined || flags.fromQueryFile !== undefined;
      if (fromQuery === (file !== undefined)) throw new UsageError('prompts send: give a prompt file or --from-query/--from-query-file (one of them)');
      if (!fromQuery && flags.dryRun) throw new UsageError('prompts send: --dry-run goes with --from-query (a file is printed by reading it)');
      // A query's rows: their own module (cli/prompts-from-query.ts).
      process.exitCode = fromQuery ? await (await import('../prompts-from-query.js')).runSendFromQuery(flags) : await runSend(file!, flags);
    });
  prompts
    .command('status')
    .description('counts by status of a batch, with its chains, the prompts that did not complete and the pull requests (--prompts: every prompt)')
    .argument('<batch>', 'batch id printed by `prompts send`')
    .option('--format <format>', 'output: text or json', 'text')
    .option('--prompts', 'also list every prompt (kind, status, job, when sent, pull request)')
    .action(async (batch: string, flags: { format: string; prompts?: boolean }) => {
      checkFormat(flags.format);
      const batchId = parseBatchId(batch);
      const { batchStatus, formatBatchReport, loadContext, withRuntime } = await load();
      await withRuntime(loadContext({ oneShot: true }), async (runtime) => {
        const status = await batchStatus(runtime.redis, runtime.config.queuePrefix, batchId, { prompts: true }).catch(whenMissing(batchId));
        if (flags.format === 'json') {
          const { prompts: all, ...rest } = status;
          writeJson({ ...rest, heldPrompts: (all ?? []).filter((p) => p.held), ...(flags.prompts ? { prompts: all } : {}) });
        } else process.stdout.write(`${formatBatchReport(status, { everyPrompt: flags.prompts === true })}\n`);
      });
    });
  prompts
    .command('resend')
    .description('send again, as new attempts, prompts of a batch whose delivery is unknown (ambiguous)')
    .argument('<batch>', 'batch id')
    .option('--ambiguous', 'resend every ambiguous prompt of the batch')
    .option('--prompt <id>', 'resend this one ambiguous prompt (its held chain then goes on)')
    .option('--include-received', 'with --ambiguous: also resend prompts most likely received (their agent job changed after the send) or whose receipt cannot be checked (creates)')
    .option('--wait', 'follow the batch to the end')
    .option('--format <format>', 'output: text or json', 'text')
    .action(async (batch: string, flags: { ambiguous?: boolean; prompt?: string; includeReceived?: boolean; wait?: boolean; format: string }) => {
      checkFormat(flags.format);
      const batchId = parseBatchId(batch);
      if (!flags.ambiguous && flags.prompt === undefined) {
        throw new UsageError('prompts resend: --ambiguous or --prompt ID is required (say explicitly that prompts of unknown delivery may be sent twice)');
      }
      if (flags.ambiguous && flags.prompt !== undefined) throw new UsageError('prompts resend: give --ambiguous or --prompt, not both');
      if (flags.includeReceived && !flags.ambiguous) throw new UsageError('prompts resend: --include-received goes with --ambiguous');
      const promptId = flags.prompt === undefined ? undefined : parsePromptId(flags.prompt);
      const { allDelivered, loadContext, resendAmbiguous, withRuntime } = await load();
      process.exitCode = await withRuntime(loadContext({ oneShot: true }), async (runtime) => {
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
          if (result.resent.length > 0) await hintWithoutWorkers(runtime, 'the resent prompts go out');
          return 0;
        }
        process.stderr.write(line);
        const final = await follow(runtime, batchId);
        await report(final, flags.format, {});
        return allDelivered(final) ? 0 : 1;
      });
    });
  prompts
    .command('recover')
    .description('rebuild a batch that Redis lost (restarted without persistence) from the ledger: never sent is sent, sent is polled, unknown ends ambiguous')
    .argument('<batch>', 'batch id printed by `prompts send`')
    .option('--wait', 'follow the batch to the end; exit 0 only when every prompt was delivered and its outcome observed')
    .option('--format <format>', 'output: text or json', 'text')
    .action(async (batch: string, flags: { wait?: boolean; format: string }) => {
      process.exitCode = await runRecover(batch, flags);
    });
  prompts
    .command('cancel')
    .description('end the prompts of a batch that were never sent as cancelled (held ones included); what is in flight finishes')
    .argument('<batch>', 'batch id')
    .option('--format <format>', 'output: text or json', 'text')
    .action(async (batch: string, flags: { format: string }) => {
      checkFormat(flags.format);
      const batchId = parseBatchId(batch);
      const { cancelBatch, loadContext, withRuntime } = await load();
      await withRuntime(loadContext({ oneShot: true }), async (runtime) => {
        const queue = runtime.queue(QUEUE_NAMES.prompts);
        const result = await cancelBatch({ redis: runtime.redis, queue, prefix: runtime.config.queuePrefix }, batchId).catch(whenMissing(batchId));
        if (flags.format === 'json') writeJson(result);
        else process.stdout.write(`batch ${batchId}: ${result.cancelled.length} prompt(s) cancelled, ${result.inFlight.length} in flight left to finish\n`);
        // Redis has the cancellations now; the batch job writes them to the warehouse.
        if (result.cancelled.length > 0) await hintWithoutWorkers(runtime, 'the warehouse (prompt_outcomes) records the cancellations', false);
      });
    });
}

const UNKNOWN_BATCH = 'neither Redis nor the ledger knows it (check the id, MINTPIPE_QUEUE_PREFIX and MINTPIPE_DATA_DIR)';

/**
 * For a batch Redis does not know: lost (the ledger has it: the error stands, exit 1, naming
 * `prompts recover`) or never submitted to this installation (a mistyped id: exit 2).
 */
function whenMissing(batchId: string): (err: unknown) => Promise<never> {
  return async (err) => {
    const { BatchNotFoundError } = await import('../../prompts/index.js');
    if (!(err instanceof BatchNotFoundError)) throw err;
    const known = await ledgerHas(batchId);
    if (known === false) throw new UsageError(`batch ${batchId}: no such batch: ${UNKNOWN_BATCH}`);
    if (known instanceof Error) throw unreadableLedger(batchId, known);
    throw err;
  };
}

/** Not in Redis, and the ledger that would tell a lost batch from a mistyped id cannot be read. */
function unreadableLedger(batchId: string, cause: Error): MintpipeError {
  return new MintpipeError(`batch ${batchId}: not in Redis (lost, or a mistyped id), and the ledger could not be read to tell which: ${cause.message}`, { cause });
}

/** Whether the ledger has any event of the batch, or why it could not be read. */
async function ledgerHas(batchId: string): Promise<boolean | Error> {
  const [{ readWarehouse }, { batchEventCountSql }] = await Promise.all([import('../read-warehouse.js'), import('../../warehouse/prompt-ledger.js')]);
  try {
    const result = await readWarehouse(batchEventCountSql(batchId), { timeoutMs: 10_000, maxRows: 1 }, 'prompts');
    return Number(result.rows[0]?.n) > 0;
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

async function runRecover(batch: string, flags: { wait?: boolean; format: string }): Promise<number> {
  checkFormat(flags.format);
  const batchId = parseBatchId(batch);
  const { allDelivered, loadContext, requestRecovery, waitForRecovery, withRuntime } = await load();
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
      ? `batch ${batchId}: still in Redis; started again (its lanes are re-checked)`
      : `batch ${batchId}: recovery queued — a worker rebuilds it from the ledger (never sent: sent; sent: polled or ambiguous)`;
    if (!flags.wait) {
      if (flags.format === 'json') writeJson(request);
      else process.stdout.write(`${line}\n`);
      if (!request.inRedis) await hintWithoutWorkers(runtime);
      return 0;
    }
    process.stderr.write(`${line}\n`);
    const started = await runtime.ensureWorkers([QUEUE_NAMES.prompts]);
    if (!started) process.stderr.write('using the running workers\n');
    await waitForRecovery(deps, request);
    const final = await follow(runtime, batchId);
    await report(final, flags.format, { recovered: !request.inRedis });
    return allDelivered(final) ? 0 : 1;
  });
}

async function runSend(file: string, flags: SendFlags): Promise<number> {
  checkFormat(flags.format);
  const { allDelivered, batchStatus, formatProblem, loadContext, readPromptFile, submitBatch, withRuntime } = await load();
  const context = loadContext({ oneShot: true });
  const parsed = await readPromptFile(file, { maxPromptBytes: context.config.prompts.maxPromptBytes }, { allowCreate: flags.allowCreate });
  for (const problem of parsed.problems) process.stderr.write(`${formatProblem(file, problem)}\n`);
  const badLines = parsed.problems.length;
  if (parsed.prompts.length === 0) {
    process.stderr.write(`${file}: no good prompts (${badLines} bad line${badLines === 1 ? '' : 's'}); nothing enqueued\n`);
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
      { force: flags.force, source: file, allowCreate: flags.allowCreate },
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
      if (submitted.added > 0) await hintWithoutWorkers(runtime);
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

/** Prompts go where the running workers send them: refuse when that is not this shell's upstream. */
async function checkPromptsHandOver(runtime: Runtime): Promise<void> {
  const { checkUpstreamHandOver } = await import('../hand-over-check.js');
  await checkUpstreamHandOver(runtime.redis, runtime.config, QUEUE_NAMES.prompts);
}

/**
 * Submitting needs only Redis, so a batch can wait there for workers: says so (on stderr) when
 * none is connected, and nothing when Redis will not tell.
 */
async function hintWithoutWorkers(runtime: Runtime, what = 'the batch runs', orWait = true): Promise<void> {
  if ((await runtime.workersConnected(QUEUE_NAMES.prompts)) !== false) return;
  process.stderr.write(`no worker serves the prompts queue yet: ${what} once \`mintpipe start\` or \`mintpipe worker\` runs (with its MINTLIFY_API_KEY)${orWait ? ', or pass --wait' : ''}\n`);
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

/** Makes sure a worker serves the queue, then shows progress until the batch is final. */
async function follow(runtime: Runtime, batchId: string): Promise<BatchStatus> {
  const { ProgressDisplay, progressLine, waitForBatch } = await load();
  const started = await runtime.ensureWorkers([QUEUE_NAMES.prompts]);
  if (!started) process.stderr.write('using the running workers\n');
  const watch = started ? undefined : await followWatch(runtime, batchId);
  const display = new ProgressDisplay();
  const label = `batch ${batchId}`;
  const tty = process.stderr.isTTY === true && !process.env.CI;
  let lastPlainAt = 0;
  // Ctrl-C stops the following (and this process's workers), not the batch: say where it stands.
  const off = onStopSignal(
    () => {
      display.stop();
      process.stderr.write(
        `stopped following batch ${batchId}; it is kept: \`mintpipe prompts status ${batchId}\` shows where it stands, and workers (\`mintpipe start\` or \`mintpipe worker\`) carry it on\n`,
      );
    },
    { once: true },
  );
  try {
    return await waitForBatch(runtime.redis, runtime.config.queuePrefix, batchId, {
      watch,
      onProgress: (status) => {
        const done = status.done >= status.total;
        // Plain lines (logs, CI) at most every 2 s; a bar redraws at every look.
        if (!tty && !done && Date.now() - lastPlainAt < 2000) return;
        lastPlainAt = Date.now();
        display.update(label, { fraction: status.total ? status.done / status.total : 1, detail: progressLine(status), done });
      },
    });
  } finally {
    off();
    display.stop();
  }
}

/** Gives up following when no worker has served the prompts queue for the grace period. */
async function followWatch(runtime: Runtime, batchId: string): Promise<WaitOptions['watch']> {
  const { watchWorkers } = await import('../../queue/worker-watch.js');
  const graceMs = runtime.config.worker.followGraceMs;
  const countWorkers = async () => {
    const connected = await runtime.workersConnected(QUEUE_NAMES.prompts);
    return connected === undefined ? undefined : Number(connected);
  };
  return {
    workers: watchWorkers({ countWorkers, graceMs }),
    unserved: (status) =>
      new MintpipeError(
        `no worker has served the prompts queue for ${Math.round(graceMs / 1000)}s: ${status.total - status.done - status.held} prompt(s) of batch ${batchId} left undone; resume with \`mintpipe prompts recover ${batchId} --wait\` (or start \`mintpipe worker\`)`,
      ),
  };
}

async function report(status: BatchStatus, format: string, header: Record<string, unknown>): Promise<void> {
  const { formatBatchReport } = await load();
  if (format === 'json') {
    writeJson({ ...header, batchId: status.batchId, total: status.total, byStatus: status.byStatus, prompts: status.prompts });
  } else {
    process.stdout.write(`${formatBatchReport(status)}\n`);
  }
}

function writeJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

function checkFormat(format: string): void {
  if (!FORMATS.includes(format)) throw new UsageError(`--format: expected text or json, got "${format}"`);
}

function parsePromptId(text: string): string {
  // Hex ids: a copy in capitals (a spreadsheet, a chat) is the same id.
  const id = text.trim().toLowerCase();
  if (!/^[0-9a-f]{20}$/.test(id)) throw new UsageError(`--prompt: expected the 20-character prompt id shown by \`prompts status\`, got "${text}"`);
  return id;
}

function parseBatchId(text: string): string {
  const id = text.trim().toLowerCase();
  if (!isBatchId(id)) throw new UsageError(`batch: expected the 16-character id printed by \`prompts send\`, got "${text}"`);
  return id;
}
