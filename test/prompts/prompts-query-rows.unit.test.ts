import { describe, expect, it } from 'vitest';
import { dedupeKeys, type KeyLedgerEntry } from '../../src/prompts/dedupe-keys.js';
import { promptIdentities } from '../../src/prompts/prompt-identity.js';
import { MAX_KEY_LENGTH, promptsFromQueryRows } from '../../src/prompts/query-rows.js';

const LIMITS = { maxPromptBytes: 1000 };
const NOW = Date.parse('2026-11-26T12:00:00Z');
const DAY = 86_400_000;

function entry(over: Partial<KeyLedgerEntry>): KeyLedgerEntry {
  return { projectId: 'p', key: 'k', batchId: 'b1', promptId: 'x1', sentAtMs: null, status: 'rejected', lastAtMs: NOW - DAY, ...over };
}

describe('query rows as prompt rows', () => {
  it('reads a row as a file row plus its key, NULL and empty columns as absent', () => {
    const parsed = promptsFromQueryRows([{ projectId: 'p', prompt: 'fix it', jobId: null, chain: '', key: ' feedback:p:/a ' }], LIMITS, { allowCreate: true });
    expect(parsed.problems).toEqual([]);
    expect(parsed.prompts).toEqual([{ projectId: 'p', prompt: 'fix it', key: 'feedback:p:/a', line: 1, kind: 'create', head: 0 }]);
  });

  it('refuses a bad key, a key repeated in one run and a create without allowCreate, naming the row', () => {
    const parsed = promptsFromQueryRows(
      [
        { projectId: 'p', prompt: 'a', key: 'k' },
        { projectId: 'p', prompt: 'b', key: 'k' },
        { projectId: 'p', prompt: 'c', key: 'bad\u0007key', jobId: 'j' },
        { projectId: 'p', prompt: 'd', key: 42, jobId: 'j' },
      ],
      LIMITS,
    );
    expect(parsed.problems).toEqual([
      { line: 1, reason: expect.stringMatching(/^jobId: missing/) },
      { line: 2, reason: 'key: "k" repeats row 1 of this project' },
      { line: 3, reason: 'key: contains control characters' },
      { line: 4, reason: 'key: expected a string, got number' },
    ]);
  });

  it('takes a key of exactly MAX_KEY_LENGTH characters and refuses one a character longer', () => {
    const parsed = promptsFromQueryRows(
      [
        { projectId: 'p', prompt: 'a', jobId: 'j', key: 'k'.repeat(MAX_KEY_LENGTH) },
        { projectId: 'p', prompt: 'b', jobId: 'j', key: 'l'.repeat(MAX_KEY_LENGTH + 1) },
      ],
      LIMITS,
    );
    expect(parsed.prompts.map((p) => p.line)).toEqual([1]);
    expect(parsed.problems).toEqual([{ line: 2, reason: `key: longer than ${MAX_KEY_LENGTH} characters` }]);
  });

  it('gives a keyed row the identity of its project and key, whatever its text', () => {
    const [a, b, c] = promptIdentities([
      { projectId: 'p', prompt: 'one text', key: 'k' },
      { projectId: 'p', prompt: 'another text', key: 'k' },
      { projectId: 'q', prompt: 'one text', key: 'k' },
    ]);
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });
});

describe('dedupe of keyed rows against the ledger', () => {
  const row = { projectId: 'p', prompt: 'fix', key: 'k' };
  const options = { nowMs: NOW, dedupeDays: 14 };

  it('skips a key sent within the window, ambiguous included, and one still queued', () => {
    for (const e of [entry({ sentAtMs: NOW - 13 * DAY, status: 'completed' }), entry({ sentAtMs: NOW - DAY, status: 'ambiguous' }), entry({ status: 'queued' })]) {
      const result = dedupeKeys([row], [e], options);
      expect(result.send).toEqual([]);
      expect(result.skipped).toHaveLength(1);
    }
  });

  it('sends a key sent before the window, refused before sending, or cancelled — as a new batch (salted)', () => {
    for (const e of [entry({ sentAtMs: NOW - 15 * DAY, status: 'completed' }), entry({ status: 'rejected' }), entry({ status: 'cancelled' })]) {
      const result = dedupeKeys([row], [e], options);
      expect(result.send).toEqual([row]);
      expect(result.salt).toMatch(/^[0-9a-f]{16}$/);
    }
  });

  it('leaves rows without a key and keys of another project alone, with no salt', () => {
    const sent = entry({ projectId: 'other', sentAtMs: NOW, status: 'completed' });
    const rows = [row, { projectId: 'p', prompt: 'no key' }];
    expect(dedupeKeys(rows, [sent], options)).toEqual({ send: rows, skipped: [] });
  });

  it('makes the same salt from the same ledger, in any order', () => {
    const e1 = entry({ batchId: 'b1' });
    const e2 = entry({ batchId: 'b2', status: 'cancelled' });
    expect(dedupeKeys([row], [e1, e2], options).salt).toBe(dedupeKeys([row], [e2, e1], options).salt);
  });
});
