/**
 * Reconciling a batch with the ledger of record (the embedded warehouse's prompt_events), called
 * directly on real parts: a prompt that never moved in Redis takes the state the ledger knows of
 * its row — from its own batch, or from another batch with the same row unless the batch was
 * forced — and is never enqueued to be sent again; a chain stopped in the ledger stops here too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PromptContext } from '../../src/prompts/prompt-context.js';
import type { PromptInput } from '../../src/prompts/prompt-input.js';
import type { PromptRecord } from '../../src/prompts/prompt-record.js';
import { reconcileWithLedger } from '../../src/prompts/reconcile-ledger.js';
import { openPromptStack, promptContextOf, type PromptStack } from '../support/prompts-stack.js';

let stack: PromptStack;
let ctx: PromptContext;

beforeAll(async () => {
  stack = await openPromptStack({ workers: false });
  ctx = promptContextOf(stack);
});

afterAll(async () => {
  await stack?.close();
});

/** A submitted batch (untouched in Redis): its meta and records in input order. */
async function batch(prompts: PromptInput[], options: { force?: boolean } = {}) {
  const { batchId } = await stack.submit(prompts, { ...options, allowCreate: true });
  const records = (await stack.store.readMany(await stack.store.batchPromptIds(batchId))).filter((r): r is PromptRecord => r !== undefined);
  records.sort((a, b) => a.position - b.position);
  return { meta: { batchId, forced: options.force === true }, records };
}

/** Records in the ledger that `record` reached `status` (a later version than Redis holds). */
async function ledgerSays(record: PromptRecord, status: PromptRecord['status'], extra: Partial<PromptRecord> = {}): Promise<void> {
  const done = ['completed', 'failed', 'rejected', 'skipped', 'timed_out', 'archived', 'cancelled'].includes(status);
  await ctx.writer.write([{ ...record, status, done, version: record.version + 1, sentAtMs: Date.now(), ...(done ? { finishedAtMs: Date.now() } : {}), ...extra }]);
}

describe('a prompt the ledger knows', () => {
  it('takes over its own batch\'s sending mark as sending, never to be sent again', async () => {
    const { meta, records } = await batch([{ projectId: 'rec-own', jobId: 'job-1', prompt: 'own' }]);
    await ledgerSays(records[0]!, 'sending');
    const { records: after, adopted } = await reconcileWithLedger(ctx, meta, records);
    expect(adopted).toBe(1);
    expect(after[0]).toMatchObject({ status: 'sending', done: false });
    expect(after[0]!.error).toBe('the ledger shows it was being sent; not resent');
    expect((await stack.store.read(records[0]!.promptId))!.status).toBe('sending');
  });

  it('takes over a final status as recorded', async () => {
    const { meta, records } = await batch([{ projectId: 'rec-final', jobId: 'job-1', prompt: 'final' }]);
    await ledgerSays(records[0]!, 'completed', { prLink: 'https://example.test/pr/9' });
    const { records: after } = await reconcileWithLedger(ctx, meta, records);
    expect(after[0]).toMatchObject({ status: 'completed', done: true, prLink: 'https://example.test/pr/9' });
  });

  it('takes over the state of the same row in another batch, naming that batch', async () => {
    const row = { projectId: 'rec-other', jobId: 'job-1', prompt: 'same row' };
    const first = await batch([row, { projectId: 'rec-other', jobId: 'job-2', prompt: 'makes the batch differ' }]);
    await ledgerSays(first.records[0]!, 'polling', { jobId: 'job-1' });
    const second = await batch([row]);
    const { records: after, adopted } = await reconcileWithLedger(ctx, second.meta, second.records);
    expect(adopted).toBe(1);
    expect(after[0]).toMatchObject({ status: 'polling', sentBy: first.meta.batchId });
  });

  it('prefers another batch\'s sent row to its own entry still queued, however much newer that entry is', async () => {
    const row = { projectId: 'rec-reached', jobId: 'job-1', prompt: 'same row' };
    const first = await batch([row, { projectId: 'rec-reached', jobId: 'job-2', prompt: 'makes the batch differ' }]);
    await ledgerSays(first.records[0]!, 'completed');
    const second = await batch([row]);
    // Its own `queued` state written to the ledger after the other batch's outcome (a start re-run).
    await ctx.writer.write([{ ...second.records[0]!, version: second.records[0]!.version + 1 }]);
    const { records: after, adopted } = await reconcileWithLedger(ctx, second.meta, second.records);
    expect(adopted).toBe(1);
    expect(after[0]).toMatchObject({ status: 'completed', done: true, sentBy: first.meta.batchId });
  });

  it('does not take over another batch\'s state in a forced batch', async () => {
    const row = { projectId: 'rec-forced', jobId: 'job-1', prompt: 'same row' };
    const first = await batch([row]);
    await ledgerSays(first.records[0]!, 'completed');
    const forced = await batch([row], { force: true });
    expect((await reconcileWithLedger(ctx, forced.meta, forced.records)).adopted).toBe(0);
    const again = await batch([row, { projectId: 'rec-forced', jobId: 'job-2', prompt: 'another' }]);
    expect((await stack.store.read(forced.records[0]!.promptId))!.status).toBe('queued');
    // The same row in a batch not forced does take the state over.
    expect((await reconcileWithLedger(ctx, again.meta, again.records)).adopted).toBe(1);
  });
});

describe('chains', () => {
  it('skips the rest of a chain stopped in the ledger, in input order whatever order the records come in', async () => {
    const { meta, records } = await batch([
      { projectId: 'rec-chain', prompt: 'create', chain: 'c' },
      { projectId: 'rec-chain', prompt: 'follow up', chain: 'c' },
      { projectId: 'rec-chain', prompt: 'and again', chain: 'c' },
    ]);
    await ledgerSays(records[0]!, 'failed', { jobId: 'job-9' });
    const { records: after, adopted } = await reconcileWithLedger(ctx, meta, [...records].reverse());
    expect(adopted).toBe(3);
    expect(after.map((r) => r.status)).toEqual(['skipped', 'skipped', 'failed']);
    expect(after[0]!.error).toBe('not sent: chain "c" stopped at #1, which ended failed (as the ledger records)');
  });
});

describe('many prompts', () => {
  it('takes over every prompt the ledger knows in a batch of 1,200, and leaves the others queued', async () => {
    const prompts = Array.from({ length: 1200 }, (_, i) => ({ projectId: 'rec-many', jobId: `job-${(i % 50) + 1}`, prompt: `many ${i}` }));
    const { meta, records } = await batch(prompts);
    const known = records.filter((_, i) => i % 2 === 0);
    await ctx.writer.write(known.map((r) => ({ ...r, status: 'completed' as const, done: true, version: r.version + 1, finishedAtMs: Date.now() })));
    const { records: after, adopted } = await reconcileWithLedger(ctx, meta, records);
    expect(adopted).toBe(600);
    expect(after.filter((r) => r.status === 'completed')).toHaveLength(600);
    expect(after.filter((r, i) => i % 2 === 1 && r.status === 'queued')).toHaveLength(600);
  });
});
