/**
 * Entering lanes in a batch larger than one round trip (the store sends 500 prompts per script
 * pipeline): the prompts that entered an empty lane are exactly the first prompt of each lane, in
 * every chunk. The batch job sends those itself; a prompt wrongly counted as first in its lane
 * would be sent before the prompt ahead of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PromptRecord } from '../../src/prompts/prompt-record.js';
import { openPromptStack, type PromptStack } from '../support/prompts-stack.js';

let stack: PromptStack;

beforeAll(async () => {
  stack = await openPromptStack({ workers: false });
});

afterAll(async () => {
  await stack?.close();
});

describe('entering lanes, more prompts than one chunk', () => {
  it('reports as first in its lane the first prompt of each lane and no other, past the first 500 prompts too', async () => {
    // 500 prompts in lanes of two (rows 2k and 2k+1 share a job), then 100 prompts alone in their lanes.
    const rows = Array.from({ length: 600 }, (_, i) => ({
      projectId: 'lanes-many',
      jobId: i < 500 ? `pair-${Math.floor(i / 2)}` : `solo-${i}`,
      prompt: `prompt ${i}`,
    }));
    const batch = await stack.submit(rows);
    const records = (await stack.store.readMany(batch.promptIds)).map((r) => r as PromptRecord);
    expect(records).toHaveLength(600);

    const { firstInLane, heads } = await stack.store.enterLanes(records);

    const expected = batch.promptIds.filter((_, i) => i >= 500 || i % 2 === 0);
    expect([...firstInLane].sort()).toEqual([...expected].sort());
    expect(heads.sort()).toEqual([...expected].sort());
  });
});
