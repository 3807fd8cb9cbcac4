/**
 * The ledger writer: a caller goes on once its rows are stored, without waiting for the synced
 * marks in Redis, and a mark that fails is logged, never a failed write (the rows are stored; a
 * later run only writes the same state again).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { OutcomeWriter } from '../../src/prompts/outcome-writer.js';
import type { PromptRecord } from '../../src/prompts/prompt-record.js';
import type { PromptStore } from '../../src/prompts/prompt-store.js';
import { openPromptStack, promptsOver, type PromptStack } from '../support/prompts-stack.js';

let stack: PromptStack;
let records: PromptRecord[];
let batchId: string;

beforeAll(async () => {
  stack = await openPromptStack({ workers: false });
  const batch = await stack.submit(promptsOver('writer', 4, 1));
  batchId = batch.batchId;
  records = (await stack.store.readMany(batch.promptIds)).map((r) => r!);
});

afterAll(async () => {
  await stack?.close();
});

/** A store whose synced marks are decided by the test. */
function storeMarking(markSyncedMany: PromptStore['markSyncedMany']): PromptStore {
  return { markSyncedMany } as unknown as PromptStore;
}

async function storedVersions(promptId: string): Promise<number[]> {
  const rows = await stack.rows(`SELECT version FROM mintpipe.prompt_events WHERE batch_id = '${batchId}' AND prompt_id = '${promptId}' ORDER BY version`);
  return rows.map((r) => Number(r.version));
}

describe('the prompt ledger writer', () => {
  it('resolves a write once its rows are stored, while the synced marks are still on their way', async () => {
    let marked: Array<{ promptId: string; version: number }> = [];
    let release!: () => void;
    const marksDone = new Promise<void>((resolve) => (release = resolve));
    const writer = new OutcomeWriter(
      stack.warehouse,
      storeMarking(async (versions) => {
        marked = [...versions];
        await marksDone;
      }),
      pino({ enabled: false }),
    );
    const record = { ...records[0]!, version: 7 };
    let timer: NodeJS.Timeout | undefined;
    // Far longer than an insert takes, even on a busy machine: only a write waiting for the marks
    // (held back until the end of this test) runs into it.
    const waitedForMarks = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('the write waited for the synced marks')), 20_000);
    });
    try {
      await Promise.race([writer.write([record]), waitedForMarks]);
      expect(await storedVersions(record.promptId)).toContain(7);
      expect(marked).toEqual([{ promptId: record.promptId, version: 7 }]);
    } finally {
      clearTimeout(timer);
      release();
    }
  });

  it('logs a failed mark and still resolves the write whose rows were stored', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    const writer = new OutcomeWriter(
      stack.warehouse,
      storeMarking(async () => {
        throw new Error('Redis went away');
      }),
      logger,
    );
    const record = { ...records[1]!, version: 9 };
    await expect(writer.write([record])).resolves.toBeUndefined();
    expect(await storedVersions(record.promptId)).toContain(9);
    // The next write still goes through: the writer did not stop at the failed mark.
    await writer.write([{ ...records[2]!, version: 11 }]);
    expect(await storedVersions(records[2]!.promptId)).toContain(11);
    expect(lines.filter((l) => l.event === 'prompt_synced_marks_failed')).toHaveLength(2);
  });

  it('is idle only once every write in flight ended, synced marks included (what a closing worker waits for)', async () => {
    const order: string[] = [];
    let release!: () => void;
    const marksDone = new Promise<void>((resolve) => (release = resolve));
    const writer = new OutcomeWriter(
      stack.warehouse,
      storeMarking(async () => {
        await marksDone;
        order.push('marked');
      }),
      pino({ enabled: false }),
    );
    await writer.idle();
    // Left behind, as a run that waits leaves its write: nobody awaits it.
    const behind = writer.write([{ ...records[3]!, version: 13 }]).then(() => order.push('stored'));
    const idle = writer.idle().then(() => order.push('idle'));
    await behind;
    expect(order).toEqual(['stored']);
    release();
    await idle;
    expect(order).toEqual(['stored', 'marked', 'idle']);
    expect(await storedVersions(records[3]!.promptId)).toContain(13);
  });
});
