/**
 * Reader text (feedback comments, assistant questions, search terms) is written by anyone on the
 * internet and goes into prompts for an agent that can open pull requests: it is quoted as data,
 * never as instructions. Each item is cleaned (control and zero-width characters out, whitespace
 * collapsed to one line, backticks and tildes replaced so no fence can be opened or closed from
 * inside, anything shaped like an API key and the configured key redacted), capped, and the items
 * go inside one fenced block whose markers the cleaned text cannot contain. Contact fields never
 * reach this module: recipes select none.
 */
import { createRedactor, type Redactor } from '../secrets/redactor.js';

export interface QuoteOptions {
  /** Longest item, in characters, after cleaning. @default 500 */
  maxItemChars?: number;
  /** Longest quoted block, in characters (items that do not fit are counted, not shown). @default 6000 */
  maxTotalChars?: number;
  /** Values to redact (the API key and its secret part). @default [] */
  secrets?: ReadonlyArray<string | undefined>;
}

export interface QuotedItem {
  /** Where it came from (a feedback id, a conversation id); cleaned like the text. */
  id: string;
  text: string;
}

/** The info string of the fence: says what the block holds. */
export const FENCE_OPEN = '```reader-input';
export const FENCE_CLOSE = '```';

// Controls (C0, DEL, C1), zero-width and joiners, bidi embeddings and isolates, BOM, line and
// paragraph separators, soft hyphen, interlinear annotations.
const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufeff\ufff9-\ufffb]/g;
/** Variation selectors (a class of their own: they combine with what precedes them). */
const SELECTORS = /[\ufe00-\ufe0f]/g;
/** Characters that look like a fence's backticks or tildes (fullwidth, modifier grave). */
const FENCE_LIKE = /[`\u02cb\u1fef\uff40~\u02dc\u2053\u223c\uff5e]/g;

/** A redactor for the configured key, its secret part, and anything shaped like a key. */
export function readerRedactor(secrets: ReadonlyArray<string | undefined> = []): Redactor {
  const parts = secrets.flatMap((s) => (s === undefined ? [] : [s, s.replace(/^mint_/i, '')]));
  return createRedactor(parts);
}

/** One item as it may appear inside the fence: one line, no fence characters, no secrets, capped. */
export function cleanReaderText(text: string, maxChars: number, redact: Redactor): string {
  const visible = text.normalize('NFKC').replace(INVISIBLE, ' ').replace(SELECTORS, '');
  const oneLine = redact(visible).replace(FENCE_LIKE, "'").replace(/\s+/g, ' ').trim();
  const chars = [...oneLine];
  return chars.length <= maxChars ? oneLine : `${chars.slice(0, maxChars - 1).join('').trimEnd()}…`;
}

/**
 * The items as one fenced block, numbered, with their ids; items beyond the total are counted in
 * a last line (inside the fence). Empty items are left out.
 */
export function quoteReaderText(items: readonly QuotedItem[], options: QuoteOptions = {}): string {
  const maxItem = options.maxItemChars ?? 500;
  const maxTotal = options.maxTotalChars ?? 6000;
  const redact = readerRedactor(options.secrets);
  const lines: string[] = [];
  let total = FENCE_OPEN.length + FENCE_CLOSE.length + 2;
  let omitted = 0;
  for (const item of items) {
    const text = cleanReaderText(item.text, maxItem, redact);
    if (text === '') continue;
    const line = `${lines.length + 1}. [${cleanReaderText(item.id, 64, redact)}] ${text}`;
    if (total + line.length + 1 > maxTotal - 40) {
      omitted++;
      continue;
    }
    lines.push(line);
    total += line.length + 1;
  }
  if (omitted > 0) lines.push(`(${omitted} more not shown)`);
  return [FENCE_OPEN, ...lines, FENCE_CLOSE].join('\n');
}
