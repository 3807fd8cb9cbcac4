/** The arguments every prompts subcommand shares: the output format, batch and prompt ids. */
import { UsageError } from '../errors.js';
import { isBatchId } from '../prompts/batch-id-format.js';

const FORMATS = ['text', 'json'];

export function checkFormat(format: string): void {
  if (!FORMATS.includes(format)) throw new UsageError(`--format: expected text or json, got "${format}"`);
}

export function parsePromptId(text: string): string {
  // Hex ids: a copy in capitals (a spreadsheet, a chat) is the same id.
  const id = text.trim().toLowerCase();
  if (!/^[0-9a-f]{20}$/.test(id)) throw new UsageError(`--prompt: expected the 20-character prompt id shown by \`prompts status\`, got "${text}"`);
  return id;
}

export function parseBatchId(text: string): string {
  const id = text.trim().toLowerCase();
  if (!isBatchId(id)) throw new UsageError(`batch: expected the 16-character id printed by \`prompts send\`, got "${text}"`);
  return id;
}
