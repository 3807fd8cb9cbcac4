/**
 * A prompt's identity in the ledger: its own row, not its file. The row's project, where it goes
 * (its agent job, its chain key, or a create), its text, and which occurrence of that same row
 * in the file it is (the second identical row is a second prompt, meant to be sent again). The
 * same file maps to the same identities, and a file with one line fixed keeps the identities of
 * every other line: resubmitted, only the fixed line is new to the ledger.
 *
 * Chain keys are scoped to the file, so two files that reuse a chain key with the same project
 * and the same text name the same prompt: that is the price of a fixed file matching its
 * original (documented in docs/prompts.md).
 */
import { createHash } from 'node:crypto';
import type { PromptInput } from './prompt-input.js';

/** Where a row goes, as one part: a NUL-led marker cannot be an id (ids refuse control characters). */
function target(p: PromptInput): string {
  if (p.chain !== undefined) return `\u0000chain:${p.chain}`;
  return p.jobId ?? '\u0000create';
}

function sha256Hex(parts: readonly string[]): string {
  const hash = createHash('sha256');
  // Length-prefixed parts: no two different lists hash the same text.
  for (const part of parts) hash.update(`${Buffer.byteLength(part)}:${part}`);
  return hash.digest('hex');
}

/**
 * The identities of a file's rows, in input order (repeated rows count their occurrences). A row
 * with a `key` (a query's row) is its project and key: the same key is the same prompt whatever
 * its text, and whether it is sent again is the dedupe window's decision (dedupe-keys.ts), not
 * the ledger takeover's.
 */
export function promptIdentities(rows: readonly PromptInput[]): string[] {
  const seen = new Map<string, number>();
  return rows.map((row) => {
    if (row.key !== undefined) return sha256Hex(['key/1', row.projectId, row.key]).slice(0, 32);
    const parts = [row.projectId, target(row), row.prompt];
    const key = sha256Hex(parts);
    const occurrence = (seen.get(key) ?? 0) + 1;
    seen.set(key, occurrence);
    return sha256Hex(['identity/1', ...parts, String(occurrence)]).slice(0, 32);
  });
}
