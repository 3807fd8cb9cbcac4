/**
 * The text of a prompt file (or a query file), which must be UTF-8. A file that is not (a binary,
 * a UTF-16 export from a spreadsheet, another legacy encoding) is refused as a whole in one line
 * naming what it is, instead of being decoded into replacement characters that turn into a bad
 * line each, a header that seems to miss every column, or a query that matches nothing.
 */
import { UsageError } from '../errors.js';

/** What the file is to the user, and what it should hold. */
export interface TextFileKind {
  /** @default prompt file */
  name: string;
  /** @default UTF-8 JSONL or CSV */
  holds: string;
}

const PROMPT_FILE: TextFileKind = { name: 'prompt file', holds: 'UTF-8 JSONL or CSV' };

/** Decodes `bytes` read from `path` as UTF-8, or throws a UsageError naming the file and the problem. */
export function promptFileText(path: string, bytes: Uint8Array, kind: TextFileKind = PROMPT_FILE): string {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw new UsageError(`${path}: UTF-16 text (it starts with a UTF-16 byte-order mark), not UTF-8: save the ${kind.name} as UTF-8`);
  }
  const nul = bytes.indexOf(0);
  if (nul !== -1) throw new UsageError(`${path}: not a text file (a NUL byte at offset ${nul}): a ${kind.name} is ${kind.holds}`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`${path}: not UTF-8 text (${invalidAt(bytes)}): save the ${kind.name} as UTF-8`);
  }
}

/** Where the first byte sequence that is not UTF-8 is, as "an invalid byte sequence on line N". */
function invalidAt(bytes: Uint8Array): string {
  // The longest prefix that decodes (a character cut at its end allowed: `stream`), found by
  // halving, not by decoding ever longer prefixes.
  const decodes = (length: number) => {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, length), { stream: true });
      return true;
    } catch {
      return false;
    }
  };
  let good = 0;
  let bad = bytes.length;
  while (bad - good > 1) {
    const middle = Math.floor((good + bad) / 2);
    if (decodes(middle)) good = middle;
    else bad = middle;
  }
  // The prefix may end in the first bytes of the bad sequence, never in a line feed after them.
  const line = bytes.subarray(0, good).filter((byte) => byte === 0x0a).length + 1;
  return `an invalid byte sequence on line ${line}`;
}
