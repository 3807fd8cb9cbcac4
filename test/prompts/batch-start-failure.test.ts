/**
 * A batch whose batch job ends for good before it started the batch — crashes spent its attempts,
 * or its last attempt failed — records why on the batch. Its prompts stay queued and unsent (the
 * cause may pass), `prompts status` says it did not start and what to run, a follower stops on it
 * (exit 1) instead of waiting forever, and a start that succeeds later clears it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { allDelivered, BatchStartFailedError, batchJobId, startBatch, waitForBatch } from '../../src/prompts/index.js';
import { JOB_ATTEMPTS } from '../../src/queue/crash-budget.js';
import { queueKeyPrefix, QUEUE_NAMES } from '../../src/queue/queues.js';
import { openPromptStack, promptContextOf, promptsOver, type PromptStack } from '../support/prompts-stack.js';
import { runCli } from '../support/run-cli.js';
import { rejection, until } from '../support/wait.js';
import { fileTempDir } from '../support/test-env.js';

const stacks: PromptStack[] = [];
afterAll(async () => {
  for (const stack of stacks) await stack.close();
});

async function open(...args: Parameters<typeof openPromptStack>): Promise<PromptStack> {
  const stack = await openPromptStack(...args);
  stacks.push(stack);
  return stack;
}

/** The Redis hash BullMQ keeps a job in (its `stc` and `atm` fields count crashes and failures). */
function jobKey(stack: PromptStack, jobId: string): string {
  return `${queueKeyPrefix(stack.config.queuePrefix)}:${QUEUE_NAMES.prompts}:${jobId}`;
}

/** The job once it is in one of `states`, with the state it is in. */
async function jobIn(stack: PromptStack, jobId: string, ...states: string[]) {
  const queue = stack.runtime.queue(QUEUE_NAMES.prompts);
  return until(`batch job ${jobId} to be ${states.join(' or ')}`, async () => {
    const state = await queue.getJobState(jobId);
    return states.includes(state) ? { job: (await queue.getJob(jobId))!, state } : undefined;
  });
}

function didNotStart(batchId: string, reason: string, queued: number): string {
  return `did not start: ${reason}; ${queued} prompt(s) still queued: \`mintpipe prompts recover ${batchId}\` starts it again`;
}

describe('a batch submitted for another upstream than the worker that takes it', () => {
  it('is not started: its prompts stay queued and unsent, and the batch says both sides, by URL and key fingerprint', async () => {
    const stack = await open({ workers: false });
    const elsewhere = { url: 'https://api.mintlify.com', keyFingerprint: 'f'.repeat(64) };
    const batch = await stack.submit(promptsOver('other-upstream', 2, 1), { upstream: elsewhere });
    await stack.runtime.startWorkers([QUEUE_NAMES.prompts]);
    const { job, state } = await jobIn(stack, batchJobId(batch.batchId, 0), 'completed', 'failed');
    expect(state).toBe('failed');
    const mine = await stack.runtime.upstream();
    const reason = `the start failed and a retry cannot help: UpstreamMismatchError: enqueued for https://api.mintlify.com (key ffffffff), and this worker sends to ${mine.url} (key ${mine.keyFingerprint!.slice(0, 8)}): not run;`;
    expect(job.failedReason.startsWith(reason)).toBe(true);
    const status = await stack.status(batch.batchId);
    expect(status.startFailure?.reason.startsWith(reason)).toBe(true);
    expect({ queued: status.byStatus.queued, done: status.done }).toEqual({ queued: 2, done: 0 });
    expect(stack.emulator.messages).toEqual([]);
  });

  it('is started by a worker sending where it was submitted for', async () => {
    const stack = await open({ workers: false });
    const batch = await stack.submit(promptsOver('same-upstream', 2, 1), { upstream: await stack.runtime.upstream() });
    await stack.runtime.startWorkers([QUEUE_NAMES.prompts]);
    expect((await stack.finish(batch.batchId)).done).toBe(2);
  });
});

describe('a batch whose batch job crashed until its attempts were spent', () => {
  it('records why it did not start, keeps its prompts queued and unsent, says so in status and to a follower, and `prompts recover` starts it', async () => {
    const stack = await open({ workers: false });
    const batch = await stack.submit(promptsOver('stuck-start', 2, 1));
    const jobId = batchJobId(batch.batchId, 0);
    // What that many crashes leave in Redis: the job's stall counter at its attempts.
    await stack.runtime.redis.hset(jobKey(stack, jobId), 'stc', JOB_ATTEMPTS);
    await stack.runtime.startWorkers([QUEUE_NAMES.prompts]);

    const { job, state } = await jobIn(stack, jobId, 'completed', 'failed');
    expect(state).toBe('failed');
    const reason = `its batch job's worker stopped (crashed or was killed) ${JOB_ATTEMPTS} time(s) and the start failed 0 time(s): the ${JOB_ATTEMPTS} attempts are spent`;
    expect(job.failedReason).toBe(reason);
    expect((job.stacktrace ?? []).join('\n')).not.toMatch(/\n\s+at /);
    const status = await stack.status(batch.batchId);
    expect(status.startFailure?.reason).toBe(reason);
    expect({ queued: status.byStatus.queued, done: status.done }).toEqual({ queued: 2, done: 0 });
    expect(stack.emulator.messages).toEqual([]);

    const following = await rejection(waitForBatch(stack.runtime.redis, stack.config.queuePrefix, batch.batchId, { intervalMs: 25, signal: AbortSignal.timeout(10_000) }));
    expect(following).toBeInstanceOf(BatchStartFailedError);
    expect((following as Error).message).toBe(`batch ${batch.batchId} ${didNotStart(batch.batchId, reason, 2)}`);

    const shown = await runCli(['prompts', 'status', batch.batchId], stack.env);
    expect(shown.code).toBe(0);
    expect(shown.stdout.split('\n')[1]).toMatch(new RegExp(`^${escape(didNotStart(batch.batchId, reason, 2))} \\(at \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\)$`));
    const json = await runCli(['prompts', 'status', batch.batchId, '--format', 'json'], stack.env);
    expect(JSON.parse(json.stdout).startFailure).toEqual({ reason, at: status.startFailure?.at });

    // Held in the queue for a moment: asking for a start again replaces the old failure at once, so
    // a follower waits for the new start rather than stopping on the last one's failure.
    const queue = stack.runtime.queue(QUEUE_NAMES.prompts);
    await queue.pause();
    const recovered = await runCli(['prompts', 'recover', batch.batchId], stack.env);
    expect({ code: recovered.code, stdout: recovered.stdout.trim() }).toEqual({ code: 0, stdout: `batch ${batch.batchId}: still in Redis; started again (each agent job's next prompt is looked at again)` });
    expect((await stack.status(batch.batchId)).startFailure).toBeUndefined();
    await queue.resume();
    const final = await stack.finish(batch.batchId);
    expect(final.startFailure).toBeUndefined();
    expect(allDelivered(final)).toBe(true);
    expect([...stack.messagesByJob().values()].map((m) => m.length)).toEqual([1, 1]);
  });
});

describe('a batch whose batch job failed on its last attempt', () => {
  it('records why (the ledger could not be read), `send --wait` stops on it with that line and exit 1, and a start once the warehouse is back clears it', async () => {
    const stack = await open();
    const queue = stack.runtime.queue(QUEUE_NAMES.prompts);
    const events = `${stack.warehouse.database}.prompt_events`;
    const dir = fileTempDir('start-failure');
    const path = join(dir, 'prompts.jsonl');
    writeFileSync(path, promptsOver('ledger-away', 2, 1).map((p) => JSON.stringify(p)).join('\n'));
    // The warehouse refuses the batch job's ledger reads: its table is not where the job looks.
    await stack.warehouse.client.command({ query: `RENAME TABLE ${events} TO ${events}_away` });
    let batchId: string;
    try {
      const following = runCli(['prompts', 'send', path, '--wait'], stack.env);
      batchId = await until('the batch to be submitted', async () => (await stack.runtime.redis.zrange(stack.store.keys.batches(), 0, -1))[0]);
      const jobId = batchJobId(batchId, 0);
      // Its first failure waits for a retry; what seven failures leave in Redis makes that retry its last attempt.
      const { job: retrying } = await jobIn(stack, jobId, 'delayed');
      expect(retrying.failedReason).toMatch(/prompt_events/);
      await stack.runtime.redis.hset(jobKey(stack, jobId), 'atm', JOB_ATTEMPTS - 1);
      await retrying.promote();

      const { job: failed } = await jobIn(stack, jobId, 'failed');
      expect(failed.failedReason).toMatch(new RegExp(`^the start failed on the last of its ${JOB_ATTEMPTS} attempts: .*prompt_events`));
      expect(failed.failedReason).not.toMatch(/\n/);
      const status = await stack.status(batchId);
      expect(status.startFailure?.reason).toBe(failed.failedReason);
      expect(status.byStatus.queued).toBe(2);
      const result = await following;
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n').at(-1)).toBe(`mintpipe: batch ${batchId} ${didNotStart(batchId, failed.failedReason, 2)}`);
      expect(stack.emulator.messages).toEqual([]);
    } finally {
      await stack.warehouse.client.command({ query: `RENAME TABLE ${events}_away TO ${events}` });
    }

    // The outage over, a start succeeds: the recorded failure no longer holds, and every prompt is delivered.
    await startBatch(promptContextOf(stack), { batchId });
    expect((await stack.status(batchId)).startFailure).toBeUndefined();
    const final = await stack.finish(batchId);
    expect(allDelivered(final)).toBe(true);
    expect([...stack.messagesByJob().values()].map((m) => m.length)).toEqual([1, 1]);
    expect(await queue.getJobState(batchJobId(batchId, 0))).toBe('failed');
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
