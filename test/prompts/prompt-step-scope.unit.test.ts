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

describe('a run’s writes', () => {
  /** A writer whose inserts finish only when the test lets them. */
  function heldWriter() {
    const inserts: string[][] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const ctx = {
      logger: pino({ enabled: false }),
      writer: {
        write: async (records: readonly PromptRecord[]) => {
          if (records.length === 0) return;
          await released;
          inserts.push(records.map((r) => `${r.promptId}:${r.status}`));
        },
      },
    } as unknown as PromptContext;
    return { ctx, inserts, release };
  }

  it('writes the changes of a step that waits behind it: the run goes on before the insert ends, and the insert happens', async () => {
    const { ctx, inserts, release } = heldWriter();
    const outcome = await new StepScope(ctx, record('a', 'polling')).runAndWrite(async () => ({ kind: 'wait', delayMs: 5, reason: 'polling' }));
    expect(outcome.kind).toBe('wait');
    expect(inserts).toEqual([]);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(inserts).toEqual([['a:polling']]);
  });

  it('waits for the insert of a step that ended the prompt, and of one that threw, before the run ends', async () => {
    for (const step of [async () => ({ kind: 'finished' as const, status: 'completed' as const }), async () => Promise.reject(new Error('step failed'))]) {
      const { ctx, inserts, release } = heldWriter();
      let settled = false;
      const run = new StepScope(ctx, record('a', 'completed')).runAndWrite(step).then(
        () => (settled = true),
        () => (settled = true),
      );
      await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toBe(false);
      release();
      await run;
      expect(inserts).toEqual([['a:completed']]);
    }
  });
});
