/**
 * Submitting a batch: ids from content (the same good records make the same batch and prompts),
 * the prompts recorded in Redis, and one batch job that starts them. Submitting the same records
 * again adds nothing (the prompts exist, the batch job id is taken) unless `force` makes a new
 * batch. Needs only Redis and the queue: the CLI can submit while workers run elsewhere.
 */
import type { JobUpstream } from '../queue/job-upstream.js';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { UsageError } from '../errors.js';
import { planChains } from './plan-chains.js';
import { batchIdFor, newBatchSalt, promptIdFor } from './prompt-ids.js';
import { promptIdentities } from './prompt-identity.js';
import type { PromptInput } from './prompt-input.js';
import { addBatchJob } from './prompt-jobs.js';
import { chainLaneId, jobLaneId } from './prompt-keys.js';
import { PromptStore, type NewPrompt } from './prompt-store.js';

export interface SubmitDeps {
  redis: Redis;
  /** The prompts queue. */
  queue: Queue;
  /** `config.queuePrefix`. */
  prefix: string;
}

export interface SubmitOptions {
  /** Make a new batch even when these prompts were submitted before. @default false */
  force?: boolean;
  /** Where the prompts came from (shown by `status`). @default '' */
  source?: string;
  /** Prompts without `jobId` may create agent jobs (a create cannot be undone). @default false */
  allowCreate?: boolean;
  /**
   * Names a new batch for the same rows without `force`'s meaning (the ledger takeover still
   * applies): keyed rows whose earlier sends the dedupe window let go (dedupe-keys.ts). @default none
   */
  salt?: string;
  /** Recorded on the batch job (src/queue/job-upstream.ts): a worker sending elsewhere does not start it. */
  upstream?: JobUpstream;
}

export interface SubmittedBatch {
  batchId: string;
  total: number;
  /** Prompts recorded by this submission. */
  added: number;
  /** Prompts that were already submitted (nothing enqueued for them). */
  existing: number;
  /** Prompt ids in input order. */
  promptIds: string[];
}

export async function submitBatch(
  deps: SubmitDeps,
  prompts: ReadonlyArray<PromptInput & { line?: number }>,
  options: SubmitOptions = {},
): Promise<SubmittedBatch> {
  if (prompts.length === 0) throw new UsageError('no prompts to submit');
  const plan = planChains(prompts, { allowCreate: options.allowCreate });
  const [problem] = plan.problems;
  if (problem) throw new UsageError(`prompt ${problem.index + 1}: ${problem.reason}`);
  const batchId = batchIdFor(prompts, options.force ? newBatchSalt() : options.salt);
  const ids = prompts.map((p, position) => promptIdFor(batchId, position, p));
  const identities = promptIdentities(plan.prompts);
  // A chain's rows point to the next one (a step that does not complete stops or holds the rest).
  const nextOf = new Map<number, string>();
  const lastOfChain = new Map<number, number>();
  plan.prompts.forEach((p, position) => {
    if (p.chain === undefined) return;
    const previous = lastOfChain.get(p.head);
    if (previous !== undefined) nextOf.set(previous, ids[position]!);
    lastOfChain.set(p.head, position);
  });
  const records: NewPrompt[] = plan.prompts.map((p, position) => {
    const head = plan.prompts[p.head]!;
    // A chain's follow-ups go to the job its first row names; a created job is known only later.
    const jobId = p.jobId ?? head.jobId;
    return {
      projectId: p.projectId,
      jobId,
      prompt: p.prompt,
      kind: p.kind,
      chain: p.chain,
      ...(p.key === undefined ? {} : { key: p.key }),
      ...(p.sources?.length ? { sources: p.sources } : {}),
      line: p.line,
      position,
      promptId: ids[position]!,
      identity: identities[position]!,
      chainHead: p.chain === undefined ? undefined : ids[p.head],
      next: nextOf.get(position),
      lane: jobId === undefined ? chainLaneId(batchId, p.chain ?? `#${p.head}`) : jobLaneId(p.projectId, jobId),
    };
  });
  const store = new PromptStore(deps.redis, deps.prefix);
  const { added, existing } = await store.createBatch({ batchId, total: records.length, createdAtMs: Date.now(), source: options.source ?? '', forced: options.force === true }, records);
  // Added last: a submission cut short is completed by submitting again, and the job (a no-op
  // when it exists) then starts every prompt that was recorded.
  await addBatchJob(deps.queue, batchId, 0, options.upstream);
  if (added === 0) {
    // Submitted before and not finished: run the batch job again (a new generation). It adds no
    // prompt, but re-checks the lanes of the open ones, so a lane stuck by a lost or failed job
    // moves again.
    const { done } = await store.batchCounts(batchId);
    if (done < records.length) await addBatchJob(deps.queue, batchId, await store.nextBatchGeneration(batchId), options.upstream);
  }
  return { batchId, total: records.length, added, existing, promptIds: records.map((r) => r.promptId) };
}
