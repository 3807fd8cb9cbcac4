/**
 * Counts the rows of a streamed result in the engine's bytes, and passes on at most `maxRows` of
 * them. The engine stops producing soon after the cap (`max_result_rows` + `break`, set one above
 * it), but only at a block's end: the rows past the cap are dropped here, and their presence is
 * what says the result was cut. A row ends at a line break; in CSV only at one outside quotes (the
 * engine quotes every string, so a break inside a value is always quoted).
 */
import { HEADER_LINES, type ResultFormat } from './result-format.js';

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const NOTHING = Buffer.alloc(0);

export class RowCutter {
  /** Rows passed on so far. */
  rows = 0;
  /** Set once a row past `maxRows` was seen: the result was cut, and nothing more is passed on. */
  cut = false;
  private headerLines: number;
  private readonly quoted: boolean;
  private inQuotes = false;
  /** Next quote in the current chunk at or after the scan (-1: none left; -2: not looked yet). */
  private quoteAt = -2;

  constructor(format: ResultFormat, private readonly maxRows: number | null) {
    this.headerLines = HEADER_LINES[format];
    this.quoted = format === 'csv';
  }

  /** The part of `chunk` within the cap: all of it, or the bytes up to the first row past it. */
  take(data: Uint8Array): Buffer {
    const chunk = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    if (this.cut) return NOTHING;
    this.quoteAt = -2;
    let at = 0;
    while (at < chunk.length) {
      if (this.headerLines === 0 && this.maxRows !== null && this.rows === this.maxRows && !this.inQuotes) {
        this.cut = true;
        return chunk.subarray(0, at);
      }
      const end = this.lineEnd(chunk, at);
      if (end === -1) break;
      if (this.headerLines > 0) this.headerLines -= 1;
      else this.rows += 1;
      at = end + 1;
    }
    return chunk;
  }

  /** Index of the line break that ends the current line, or -1 when it ends in a later chunk. */
  private lineEnd(chunk: Buffer, from: number): number {
    if (!this.quoted) return chunk.indexOf(NEWLINE, from);
    let i = from;
    for (;;) {
      if (this.quoteAt !== -1 && this.quoteAt < i) this.quoteAt = chunk.indexOf(QUOTE, i);
      if (this.inQuotes) {
        if (this.quoteAt === -1) return -1;
        this.inQuotes = false;
        i = this.quoteAt + 1;
        continue;
      }
      const newline = chunk.indexOf(NEWLINE, i);
      if (this.quoteAt === -1 || (newline !== -1 && newline < this.quoteAt)) return newline;
      this.inQuotes = true;
      i = this.quoteAt + 1;
    }
  }
}
