/**
 * The warehouse copy of each prompt (`synced`): marked for a whole group-committed insert at once,
 * never lowered, and a prompt Redis no longer has is skipped, not made again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PromptKeys } from '../../src/prompts/prompt-keys.js';
import { openPromptStack, promptsOver, type PromptStack } from '../support/prompts-stack.js';

let stack: PromptStack;

beforeAll(async () => {
  stack = await openPromptStack({ workers: false });
});

afterAll(async () => {
  await stack?.close();
});

describe('marking prompts synced', () => {
  it('marks more prompts than one script call takes, keeps the highest version (also of a prompt marked twice in one call), and skips prompts Redis lost', async () => {
    // 1,201 prompts: three script calls of at most 500.
    const batch = await stack.submit(promptsOver('synced', 1201, 1));
    const ids = batch.promptIds;
    await stack.store.markSyncedMany(ids.map((promptId, i) => ({ promptId, version: 1 + (i % 3) })));
    // A lower version later (a slow insert finishing last) does not lower the mark.
    await stack.store.markSyncedMany([{ promptId: ids[2]!, version: 1 }]);
    // Nor does a lower version after a higher one of the same prompt in one group (the writer marks each change).
    await stack.store.markSyncedMany([{ promptId: ids[1]!, version: 9 }, { promptId: ids[1]!, version: 1 }]);
    const lost = `${ids[0]!.slice(0, -4)}zzzz`;
    await stack.store.markSyncedMany([{ promptId: lost, version: 5 }, { promptId: ids[0]!, version: 4 }]);

    const records = await stack.store.readMany(ids);
    expect(records.map((r) => r!.syncedVersion)).toEqual(ids.map((_, i) => (i === 0 ? 4 : i === 1 ? 9 : 1 + (i % 3))));
    expect(await stack.runtime.redis.exists(new PromptKeys(stack.config.queuePrefix).prompt(lost))).toBe(0);
  });
});
