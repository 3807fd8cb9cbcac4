/**
 * Ids from content, so that submitting the same file twice names the same batch and prompts (and
 * enqueues nothing new). The batch id hashes the normalized good records in order; a prompt id
 * hashes its batch, position and content. `--force` salts the batch id to make a new batch.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { PromptInput } from './prompt-input.js';

function sha256Hex(parts: readonly string[]): string {
  const hash = createHash('sha256');
  // Length-prefixed parts: no two different lists hash the same text.
  for (const part of parts) hash.update(`${Buffer.byteLength(part)}:${part}`);
  return hash.digest('hex');
}

/**
 * The hashed parts of one row. A row with a job and no chain hashes as it always did (ids of
 * batches submitted before chains existed stay the same); a missing job and a chain add parts that
 * start with NUL, which no id can (ids refuse control characters), so no two rows hash alike.
 */
function rowParts(p: PromptInput): string[] {
  const parts = [p.projectId, p.jobId ?? '\u0000create', p.prompt];
  if (p.chain !== undefined) parts.push(`\u0000chain:${p.chain}`);
  if (p.key !== undefined) parts.push(`\u0000key:${p.key}`);
  return parts;
}

export function batchIdFor(prompts: readonly PromptInput[], salt?: string): string {
  const parts = prompts.flatMap(rowParts);
  return sha256Hex(salt === undefined ? parts : [`salt:${salt}`, ...parts]).slice(0, 16);
}

export function promptIdFor(batchId: string, position: number, prompt: PromptInput): string {
  return sha256Hex([batchId, String(position), ...rowParts(prompt)]).slice(0, 20);
}

/** A salt that makes a forced resubmission a batch of its own. */
export function newBatchSalt(): string {
  return `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`;
}
