/**
 * Before a batch's prompts enter their lanes, each prompt that never moved in Redis takes the state
 * the ledger knows of it (by id, or by row identity in another batch): one that reached `sending` or
 * later is never sent again (docs/design.md#the-prompt-engine, prompt-identity.ts, dedupe-keys.ts).
 */
import { readPromptLedger, type LedgerEntry } from '../warehouse/index.js';
import type { PromptContext } from './prompt-context.js';
import type { PromptRecord } from './prompt-record.js';
import { FINAL_STATUSES, type PromptStatus } from './prompt-status.js';
import type { AdoptState, BatchMeta } from './prompt-store.js';

/** The state a prompt takes from the ledger, as the store's adopt takes it. */
type Adoption = Omit<AdoptState, 'minVersion' | 'attempt'>;

export interface ReconcileResult {
  /** The batch's records, with the adopted ones replaced. */
  records: PromptRecord[];
  /** Prompts that took a state from the ledger. */
  adopted: number;
  /** The ledger already had rows of this batch: it was started before, and Redis has made it again. */
  startedBefore: boolean;
}

export async function reconcileWithLedger(ctx: PromptContext, meta: Pick<BatchMeta, 'batchId' | 'forced'>, records: readonly PromptRecord[]): Promise<ReconcileResult> {
  // Prompts that never moved in Redis: the ledger may know more.
  const untouched = records.filter((r) => r.status === 'queued' && !r.laned && !r.done && r.attempt === 0);
  if (untouched.length === 0) return { records: [...records], adopted: 0, startedBefore: false };
  const entries = await readPromptLedger(ctx.warehouse, {
    promptIds: untouched.map((r) => r.promptId),
    identities: meta.forced ? [] : untouched.map((r) => r.identity).filter((i) => i !== ''),
  });
  const own = new Map<string, LedgerEntry>();
  const byIdentity = new Map<string, LedgerEntry[]>();
  for (const e of entries) {
    if (e.batchId === meta.batchId) own.set(e.promptId, e);
    if (e.identity) byIdentity.set(e.identity, [...(byIdentity.get(e.identity) ?? []), e]);
  }

  const result = new Map(records.map((r) => [r.promptId, r]));
  /** Chains (by first prompt) stopped at a step that did not complete: why. */
  const stopped = new Map<string, string>();
  let adopted = 0;
  for (const record of untouched.sort((a, b) => a.position - b.position)) {
    const mine = own.get(record.promptId);
    // A keyed row: the dedupe window at submit decided it goes; a takeover would undo that.
    const others = meta.forced || !record.identity || record.key !== undefined ? [] : (byIdentity.get(record.identity) ?? []).filter((e) => e !== mine);
    const known = best([...(mine ? [mine] : []), ...others]);
    const stop = record.chainHead ? stopped.get(record.chainHead) : undefined;
    let adoption: Adoption | undefined;
    if (known && known.status !== 'queued') adoption = adopt(ctx, record, known);
    else if (stop) adoption = { status: 'skipped', done: true, set: { finishedAt: ctx.now(), error: stop } };
    // Its own ledger entry is ahead of the new record: later events must outrank it.
    const minVersion = mine ? mine.version + 1 : 0;
    if (!adoption && minVersion <= record.version) continue;
    const next = await ctx.store.adopt(record, {
      ...(adoption ?? { status: 'queued', done: false, set: {} }),
      minVersion,
      attempt: known && known.status !== 'queued' && known === mine ? mine.attempt : record.attempt,
    });
    if (!next) continue;
    result.set(next.promptId, next);
    if (adoption) {
      adopted++;
      ctx.logger.info(
        { event: 'prompt.adopted_from_ledger', batch: meta.batchId, prompt: record.promptId, status: next.status, from: known?.batchId === meta.batchId ? 'this batch' : known?.batchId },
        'prompt state taken from the ledger: not sent again',
      );
    }
    if (next.chainHead && next.done && next.status !== 'completed') {
      const where = next.line === undefined ? `#${next.position + 1}` : `line ${next.line}`;
      stopped.set(next.chainHead, stop ?? `not sent: chain "${next.chain}" stopped at ${where}, which ended ${next.status} (as the ledger records)`);
    }
  }
  return { records: records.map((r) => result.get(r.promptId) ?? r), adopted, startedBefore: own.size > 0 };
}

/** The entry that says most: one that reached `sending` or later before one still queued, then the latest. */
function best(entries: readonly LedgerEntry[]): LedgerEntry | undefined {
  const reached = (e: LedgerEntry) => Number(e.status !== 'queued');
  return [...entries].sort((a, b) => reached(b) - reached(a) || b.recordedAtMs - a.recordedAtMs)[0];
}

function adopt(ctx: PromptContext, record: PromptRecord, known: LedgerEntry): Adoption {
  const jobId = known.jobId || record.jobId;
  // The batch whose row it really is: an entry that was itself taken over names its origin.
  const origin = known.sentBy || known.batchId;
  const sentBy = origin === record.batchId ? null : origin;
  const sent = { jobId: jobId || null, sentAt: known.sentAtMs, sentBy, before: known.seenBefore || null };
  // Said once, by the first batch that took the state over.
  const elsewhere = sentBy === null || known.sentBy ? '' : ` (${known.sentAtMs === null ? 'recorded' : 'sent'} by batch ${known.batchId}, prompt ${known.promptId})`;
  if ((FINAL_STATUSES as readonly PromptStatus[]).includes(known.status)) {
    return {
      status: known.status,
      done: true,
      set: { ...sent, finishedAt: known.finishedAtMs ?? ctx.now(), prLink: known.prLink, polls: known.polls, error: known.error ? `${known.error}${elsewhere}` : null },
    };
  }
  const by = sentBy === null ? '' : known.sentBy ? ` (sent by batch ${origin})` : elsewhere;
  const recovered = `the ledger shows it ${known.status === 'sending' ? 'was being sent' : 'was sent'}${by}; not resent`;
  if (known.status === 'polling' && jobId) {
    return { status: 'polling', done: false, set: { ...sent, pollDueAt: ctx.now(), polls: known.polls, error: null } };
  }
  if (known.status === 'ambiguous' && record.kind === 'message' && jobId) {
    return { status: 'ambiguous', done: false, set: { ...sent, pollDueAt: ctx.now(), polls: known.polls, error: known.error ?? recovered } };
  }
  // sending, or a create whose job is unknown: its step ends it ambiguous, as after a crash mid-send.
  return { status: 'sending', done: false, set: { ...sent, error: recovered } };
}
