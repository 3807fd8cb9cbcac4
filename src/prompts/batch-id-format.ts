/**
 * The shape of a batch id, without the hashing that makes one (prompt-ids.ts): the CLI checks the
 * ids it is given when it registers the prompts commands, and node:crypto (~5 ms to load) is not
 * needed for that, nor by any other command.
 */

/** Batch ids as the CLI accepts them back (`prompts status BATCH`). */
export function isBatchId(text: string): boolean {
  return /^[0-9a-f]{16}$/.test(text);
}
