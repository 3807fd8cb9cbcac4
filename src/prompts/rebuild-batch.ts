/**
 * `prompts recover BATCH` after Redis lost the batch: its prompts are made again in Redis from the
 * ledger (text, position, line, project, the job each was submitted to, chain), with the ids they
 * had, as `queued`; the batch job then takes over what the ledger knows of each
 * (reconcile-ledger.ts): what was never sent is sent, what was sent is polled or ends
 * `ambiguous`. Runs in a worker (it holds the warehouse): the CLI needs only Redis.
 */
import { readPromptLedger, type LedgerEntry } from '../warehouse/index.js';
import type { PromptContext } from './prompt-context.js';
import { promptIdentities } from './prompt-identity.js';
import type { PromptInput } from './prompt-input.js';
import { chainLaneId, jobLaneId } from './prompt-keys.js';
import type { BatchMeta, NewPrompt } from './prompt-store.js';

/** The batch's meta once rebuilt; undefined when the ledger has none of its prompts. */
export async function rebuildBatch(ctx: PromptContext, batchId: string): Promise<BatchMeta | undefined> {
  const entries = (await readPromptLedger(ctx.warehouse, { batchId })).sort((a, b) => a.position - b.position);
  if (entries.length === 0) return undefined;
  const inputs: PromptInput[] = entries.map((e) => ({
    projectId: e.projectId,
    // A chain's rows go where the chain goes; a row without one to the job it was submitted to.
    jobId: e.chain === null && e.submittedJobId ? e.submittedJobId : undefined,
    prompt: e.prompt,
    ...(e.chain === null ? {} : { chain: e.chain }),
  }));
  const identities = promptIdentities(inputs);
  const heads = new Map<string, LedgerEntry>();
  const nextOf = new Map<string, string>();
  const lastOf = new Map<string, LedgerEntry>();
  for (const e of entries) {
    if (e.chain === null) continue;
    if (!heads.has(e.chain)) heads.set(e.chain, e);
    const previous = lastOf.get(e.chain);
    if (previous) nextOf.set(previous.promptId, e.promptId);
    lastOf.set(e.chain, e);
  }
  const records: NewPrompt[] = entries.map((e, i) => {
    const head = e.chain === null ? e : heads.get(e.chain)!;
    const jobId = e.submittedJobId || undefined;
    return {
      projectId: e.projectId,
      jobId,
      prompt: e.prompt,
      kind: e.kind,
      chain: e.chain ?? undefined,
      line: e.line ?? undefined,
      position: e.position,
      promptId: e.promptId,
      identity: e.identity || identities[i]!,
      // A keyed row stays keyed: its ledger takeover is its own batch's only (reconcile-ledger.ts).
      ...(e.key ? { key: e.key } : {}),
      chainHead: e.chain === null ? undefined : head.promptId,
      next: nextOf.get(e.promptId),
      lane: jobId === undefined ? chainLaneId(batchId, e.chain ?? `#${head.position}`) : jobLaneId(e.projectId, jobId),
    };
  });
  const meta: BatchMeta = { batchId, total: records.length, createdAtMs: ctx.now(), source: 'recovered from the ledger', recovered: true };
  const { added } = await ctx.store.createBatch(meta, records);
  // A prompt whose text never reached the ledger cannot be sent; it ends with the reason.
  for (const e of entries.filter((x) => x.prompt === '' && x.status === 'queued')) {
    await ctx.store.adopt({ promptId: e.promptId, batchId, attempt: 0 }, {
      status: 'rejected',
      done: true,
      minVersion: e.version + 1,
      attempt: 0,
      set: { finishedAt: ctx.now(), error: 'not sent: the ledger has no text for it (recovered after Redis lost the batch)' },
    });
  }
  ctx.logger.warn({ event: 'prompts.batch_rebuilt', batch: batchId, prompts: records.length, added }, 'batch rebuilt from the ledger after Redis lost it');
  return meta;
}
