import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { PromptContext } from '../../src/prompts/prompt-context.js';
import { decodeRecord, type PromptRecord } from '../../src/prompts/prompt-record.js';
import { StepScope } from '../../src/prompts/step-scope.js';

/** A record whose warehouse copy is behind (version 3, synced 2): a scope made for it has it to write. */
function record(promptId: string, status: string): PromptRecord {
  const decoded = decodeRecord(promptId, { batchId: '0123456789abcdef', projectId: 'acme', jobId: 'job-1', prompt: 'p', status, version: '3', synced: '2' });
  if (!decoded) throw new Error('test record did not decode');
  return decoded;
}

/** A context with only what writing needs: a writer that records each insert, or refuses it. */
function contextWriting(inserts: string[][], refuse: () => boolean): PromptContext {
  const writer = {
    write: async (records: readonly PromptRecord[]) => {
      // As the real writer: nothing to write is no insert.
      if (records.length === 0) return;
      if (refuse()) throw new Error('warehouse down');
      inserts.push(records.map((r) => `${r.promptId}:${r.status}`));
    },
  };
  return { logger: pino({ enabled: false }), writer } as unknown as PromptContext;
}

describe('a lane handed on in the same run', () => {
  it('writes the final state of the prompt ahead in the same insert as the next prompt’s sending mark, and not again', async () => {
    const inserts: string[][] = [];
    const ctx = contextWriting(inserts, () => false);
    const ahead = new StepScope(ctx, record('a', 'completed'));
    const next = new StepScope(ctx, record('b', 'queued'), ahead);
    await next.writeNow(record('b', 'sending'));
    await ahead.flush();
    expect(inserts).toEqual([['a:completed', 'b:sending']]);
  });

  it('keeps the final state of the prompt ahead for its own flush when the ledger refuses the sending mark', async () => {
    const inserts: string[][] = [];
    let down = true;
    const ctx = contextWriting(inserts, () => down);
    const ahead = new StepScope(ctx, record('a', 'completed'));
    const next = new StepScope(ctx, record('b', 'queued'), ahead);
    await expect(next.writeNow(record('b', 'sending'))).rejects.toThrow('warehouse down');
    down = false;
    await ahead.flush();
    expect(inserts).toEqual([['a:completed']]);
  });
});
