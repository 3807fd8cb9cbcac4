/**
 * The ledger reader (what a batch start and `prompts recover` trust) picks each prompt's state as
 * `prompt_outcomes` does: the highest version, whatever order, and with whatever recorded_at, the
 * events arrived in. A late write of an older state (a stalled worker's, a replayed group commit)
 * must not take a prompt back to `sending`, or recovery would call a finished prompt ambiguous.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertPromptEvents, openWarehouse, type Warehouse } from '../../src/warehouse/index.js';
import { readPromptLedger } from '../../src/warehouse/prompt-ledger.js';
import { warehouseOptions } from '../support/engine.js';
import { fileTempDir } from '../support/test-env.js';

const dataDir = fileTempDir('wh-ledger-order');
let wh: Warehouse;

beforeAll(async () => {
  wh = await openWarehouse(warehouseOptions({ database: 'mintpipe_ledger_order_test', dataDir }));
});

afterAll(async () => {
  await wh?.close();
});

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
