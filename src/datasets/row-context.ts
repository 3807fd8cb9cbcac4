/**
 * What a dataset's row mapping may ask of the engine, one page at a time: approximate counts
 * rounded into UInt64 columns (the raw value recorded), count bounds checked, timestamps turned
 * into DateTime64 text, personal fields handled by MINTPIPE_PII, and fields beyond the schema kept
 * as JSON. Every deviation becomes a finding, never an error.
 */
import { createHash } from 'node:crypto';
import type { FindingLog } from './findings.js';

export const PII_MODES = ['keep', 'hash', 'drop'] as const;
export type PiiMode = (typeof PII_MODES)[number];

const MIN_TIME_MS = Date.parse('0000-01-01T00:00:00Z');
const MAX_TIME_MS = Date.parse('9999-12-31T23:59:59.999Z');

/** Where a value comes from, for a finding's text; a function defers building the text until a finding needs it. */
export type Where = string | (() => string);

function text(where: Where): string {
  return typeof where === 'string' ? where : where();
}

export class RowContext {
  constructor(
    private readonly log: FindingLog,
    private readonly pii: PiiMode,
  ) {}

  /**
   * A count for a UInt64 column: rounded to the nearest whole number (recorded when it was not one).
   * `where` may be a function, so the text is built only for a finding.
   */
  count(where: Where, value: number): number {
    if (Number.isInteger(value)) return value;
    const rounded = Math.max(0, Math.round(value));
    this.log.add('fractional_count', `${text(where)}: ${value} stored as ${rounded}`);
    return rounded;
  }

  /**
   * Records a `total` outside `max(human, ai) … human + ai`. The spec calls all three approximate
   * distinct counts, so this is a finding, never a failure.
   */
  totalBounds(where: Where, counts: { human: number; ai: number; total: number }): void {
    const { human, ai, total } = counts;
    if (total < Math.max(human, ai) || total > human + ai) {
      this.log.add('total_out_of_bounds', `${text(where)}: total ${total} outside [max(human, ai) = ${Math.max(human, ai)}, human + ai = ${human + ai}]`);
    }
  }

  /** DateTime64(3, 'UTC') text of an API timestamp; null for null, and for text that is no date (recorded). */
  timestamp(where: string, value: string | null | undefined): string | null {
    if (value === null || value === undefined) return null;
    // A timestamp without a zone is UTC (as the API's are), never the machine's local time.
    const zoneless = /^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?$/.test(value);
    const ms = Date.parse(zoneless ? `${value.replace(' ', 'T')}${value.length > 10 ? 'Z' : ''}` : value);
    // A year outside 0000–9999 (ISO 8601's expanded years) is no time a DateTime64 column can hold.
    if (Number.isNaN(ms) || ms < MIN_TIME_MS || ms > MAX_TIME_MS) {
      this.log.add('invalid_text', `${where}: ${JSON.stringify(value.slice(0, 60))} is not a timestamp; stored as NULL`);
      return null;
    }
    return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
  }

  /** A personal field (e.g. feedback `contact`) as MINTPIPE_PII says: kept, SHA-256 hashed, or dropped. */
  personal(value: string | null | undefined): string | null {
    if (value === null || value === undefined) return null;
    if (this.pii === 'keep') return value;
    if (this.pii === 'drop') return null;
    return `sha256:${createHash('sha256').update(value).digest('hex')}`;
  }

  /** Fields of `item` the schema does not list, as a JSON object text ('' when none). */
  extra(item: object, known: ReadonlySet<string>): string {
    let extra: Record<string, unknown> | undefined;
    // for…in, not Object.entries: most items have no extra field, and this allocates nothing then.
    for (const key in item) {
      if (known.has(key) || !Object.hasOwn(item, key)) continue;
      (extra ??= {})[key] = (item as Record<string, unknown>)[key];
    }
    return extra ? JSON.stringify(extra) : '';
  }
}
