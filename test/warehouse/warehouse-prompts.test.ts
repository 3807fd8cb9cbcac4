import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertPromptEvent, insertPromptEvents, openWarehouse, promptOutcomes, runQuery, type PromptEvent, type Warehouse } from '../../src/warehouse/index.js';
import { keySendsSql } from '../../src/warehouse/prompt-key-sends.js';
import { readPromptLedger } from '../../src/warehouse/prompt-ledger.js';
import { warehouseOptions } from '../support/engine.js';
import { fileTempDir } from '../support/test-env.js';

const dataDir = fileTempDir('wh-prompts');
let wh: Warehouse;

beforeAll(async () => {
  wh = await openWarehouse(warehouseOptions({ database: 'mintpipe_prompts_test', dataDir }));
});

afterAll(async () => {
  await wh?.close();
});

function promptOf(batchId: string, promptId: string) {
  return { batchId, promptId, projectId: 'proj', jobId: `job-${promptId}` };
}

describe('prompt outcomes', () => {
  it('shows one row per prompt with its highest version, whatever the insert order', async () => {
    const batchId = `b-${randomUUID()}`;
    const sentAt = new Date('2024-05-01T10:00:00.123Z');
    const finishedAt = new Date('2024-05-01T10:05:00.456Z');
    await insertPromptEvents(wh, [
      { ...promptOf(batchId, 'p1'), status: 'queued', version: 1 },
      { ...promptOf(batchId, 'p2'), status: 'queued', version: 1 },
    ]);
    // Version 3 arrives before version 2: the highest version wins, not the latest insert.
    await insertPromptEvent(wh, { ...promptOf(batchId, 'p1'), status: 'completed', version: 3, sentAt, finishedAt, polls: 4, prLink: 'https://github.com/o/r/pull/1' });
    await insertPromptEvent(wh, { ...promptOf(batchId, 'p1'), status: 'polling', version: 2, sentAt, polls: 2 });
    await insertPromptEvent(wh, { ...promptOf(batchId, 'p2'), status: 'sending', version: 2 });

    expect(await promptOutcomes(wh, batchId)).toEqual([
      { ...promptOf(batchId, 'p1'), status: 'completed', prLink: 'https://github.com/o/r/pull/1', sentAt, finishedAt, polls: 4, error: null, kind: 'message', chain: null },
      { ...promptOf(batchId, 'p2'), status: 'sending', prLink: null, sentAt: null, finishedAt: null, polls: 0, error: null, kind: 'message', chain: null },
    ]);
  });

  it("dates a key's send from a prompt stopped at sending (its POST may have gone out), and not from one still queued", async () => {
    const batchId = `b-${randomUUID()}`;
    const key = `key-${randomUUID()}`;
    const queuedAt = new Date('2026-11-26T10:00:00.000Z');
    const sendingAt = new Date('2026-11-26T10:00:05.000Z');
    await insertPromptEvents(wh, [
      { ...promptOf(batchId, 'sent'), status: 'queued', version: 1, key, recordedAt: queuedAt },
      { ...promptOf(batchId, 'sent'), status: 'sending', version: 2, key, recordedAt: sendingAt },
      { ...promptOf(batchId, 'waiting'), status: 'queued', version: 1, key, recordedAt: queuedAt },
    ]);
    const { rows } = await runQuery(wh, keySendsSql([key]));
    expect(rows.map((r) => [r.k_prompt_id, Number(r.k_sent_ms), r.k_status])).toEqual([
      ['sent', sendingAt.getTime(), 'sending'],
      ['waiting', 0, 'queued'],
    ]);
  });

  it('takes NULLs of the latest state as they are, not older non-null values', async () => {
    const batchId = `b-${randomUUID()}`;
    const first: PromptEvent = { ...promptOf(batchId, 'p'), status: 'ambiguous', version: 1, error: 'timeout after send', prLink: 'https://x/pr/1' };
    await insertPromptEvent(wh, first);
    await insertPromptEvent(wh, { ...promptOf(batchId, 'p'), status: 'queued', version: 2, error: null, prLink: null });
    const [outcome] = await promptOutcomes(wh, batchId);
    expect(outcome).toMatchObject({ status: 'queued', error: null, prLink: null });
  });

  it('keeps batches apart and answers the public view by batch', async () => {
    const a = `b-${randomUUID()}`;
    const b = `b-${randomUUID()}`;
    await insertPromptEvent(wh, { ...promptOf(a, 'same-id'), status: 'rejected', version: 1, error: 'job not found' });
    await insertPromptEvent(wh, { ...promptOf(b, 'same-id'), status: 'failed', version: 1 });
    expect((await promptOutcomes(wh, a)).map((o) => [o.promptId, o.status, o.error])).toEqual([['same-id', 'rejected', 'job not found']]);
    const viaView = await runQuery(wh, `SELECT prompt_id, status, polls FROM prompt_outcomes WHERE batch_id = '${b}'`);
    expect(viaView.rows).toEqual([{ prompt_id: 'same-id', status: 'failed', polls: 0 }]);
  });

  it('returns nothing for an unknown batch', async () => {
    expect(await promptOutcomes(wh, `b-${randomUUID()}`)).toEqual([]);
  });
});

/**
 * The ledger reader (what a batch start and `prompts recover` trust) picks each prompt's state as
 * `prompt_outcomes` does: a late write of an older state (a stalled worker's, a replayed group
 * commit) must not take a prompt back to `sending`, or recovery would call a finished prompt ambiguous.
 */
describe('the prompt ledger', () => {
  it('takes the highest version as the latest state, even when an older version was recorded later', async () => {
    const batchId = `b-${randomUUID()}`;
    const prompt = { batchId, promptId: 'p1', projectId: 'proj', jobId: 'job-1' };
    const at = (s: number) => new Date(Date.UTC(2026, 10, 27, 10, 0, s));
    await insertPromptEvents(wh, [
      { ...prompt, status: 'queued', version: 1, recordedAt: at(0), prompt: 'hello' },
      { ...prompt, status: 'completed', version: 3, recordedAt: at(10), polls: 4, prLink: 'https://github.com/o/r/pull/1', finishedAt: at(10) },
      // Version 2 written last, with the latest time: a late writer of an older state.
      { ...prompt, status: 'sending', version: 2, recordedAt: at(20), sentAt: at(5) },
    ]);

    const [entry] = await readPromptLedger(wh, { batchId });

    expect(entry).toMatchObject({ status: 'completed', version: 3, polls: 4, prLink: 'https://github.com/o/r/pull/1', finishedAtMs: at(10).getTime(), prompt: 'hello' });
  });
});
