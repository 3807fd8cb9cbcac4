/**
 * Which keyed rows go (query rows, prompt-input.ts): a key whose prompt reached `sending` (or any
 * state after it: polling, a final outcome, ambiguous) within the dedupe window is not sent again,
 * nor one still waiting in a batch to be sent. A send the server refused before it went out, a
 * cancelled prompt, a skipped chain step were never sent: their keys go again. Rows without a key
 * keep the ledger's rules for files (reconcile-ledger.ts).
 *
 * When earlier prompts of the keys that go exist, the batch gets a salt made of them: the same
 * rows would otherwise name the earlier batch again, which Redis still knows as done. The salt is
 * the same for the same ledger, so two runs at once still name one batch.
 */
import { createHash } from 'node:crypto';
import type { PromptInput } from './prompt-input.js';
import type { PromptStatus } from './prompt-status.js';

/** One earlier prompt of a key, as the ledger knows it. */
export interface KeyLedgerEntry {
  projectId: string;
  key: string;
  batchId: string;
  promptId: string;
  /** Epoch ms of its latest event at `sending` or after; null when it never got there. */
  sentAtMs: number | null;
  /** Its latest status. */
  status: PromptStatus;
  /** Epoch ms of its latest event. */
  lastAtMs: number;
}

export interface SkippedRow<T> {
  row: T;
  reason: string;
}

export interface KeyDedupe<T> {
  send: T[];
  skipped: Array<SkippedRow<T>>;
  /** For submitBatch's `salt`: undefined when no key that goes was seen before. */
  salt?: string;
}

const DAY_MS = 86_400_000;

/** Why an entry keeps its key from being sent now, or undefined. */
function blocks(entry: KeyLedgerEntry, sinceMs: number): string | undefined {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  if (entry.sentAtMs !== null && entry.sentAtMs >= sinceMs) return `already sent by batch ${entry.batchId} on ${day(entry.sentAtMs)}`;
  // Submitted and not sent yet: that batch sends it.
  if (entry.status === 'queued' && entry.lastAtMs >= sinceMs) return `already queued in batch ${entry.batchId}`;
  return undefined;
}

export function dedupeKeys<T extends PromptInput>(rows: readonly T[], entries: readonly KeyLedgerEntry[], options: { nowMs: number; dedupeDays: number }): KeyDedupe<T> {
  const sinceMs = options.nowMs - options.dedupeDays * DAY_MS;
  const byKey = new Map<string, KeyLedgerEntry[]>();
  const scoped = (projectId: string, key: string) => `${projectId}\u0000${key}`;
  for (const e of entries) byKey.set(scoped(e.projectId, e.key), [...(byKey.get(scoped(e.projectId, e.key)) ?? []), e]);
  const send: T[] = [];
  const skipped: Array<SkippedRow<T>> = [];
  const earlier: string[] = [];
  for (const row of rows) {
    const known = row.key === undefined ? [] : (byKey.get(scoped(row.projectId, row.key)) ?? []);
    const reason = known.map((e) => blocks(e, sinceMs)).find((r) => r !== undefined);
    if (reason !== undefined) {
      skipped.push({ row, reason: `key "${row.key}": ${reason}` });
      continue;
    }
    send.push(row);
    earlier.push(...known.map((e) => `${e.batchId}/${e.promptId}`));
  }
  if (earlier.length === 0) return { send, skipped };
  const salt = createHash('sha256').update(`keys/1\n${[...new Set(earlier)].sort().join('\n')}`).digest('hex').slice(0, 16);
  return { send, skipped, salt };
}
