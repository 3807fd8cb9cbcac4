/**
 * CSV prompt files (RFC 4180): a header naming `projectId` and `prompt`, and `jobId` and `chain`
 * when used (any order; other columns ignored unless they read like one of these, `job_id`; an
 * empty field is an absent value); quoted fields may hold commas, doubled quotes and line breaks.
 * A value where the header names no column (an unquoted comma) refuses its record. A record
 * that cannot be parsed is reported at the line where it starts, and parsing goes on.
 *
 * Line numbers come from byte offsets, not from csv-parse's own line count (which drifts on CRLF
 * files with blank lines): a record starts where its raw text starts, after any blank lines; a
 * skipped record is placed by the end of its last whole field, and reported once.
 */
import { Buffer } from 'node:buffer';
import { parse, type CsvError, type Info } from 'csv-parse';
import { UsageError } from '../errors.js';
import type { ParsedPrompts } from './parse-jsonl.js';
import { misspelledField, validatePrompt, type LineProblem, type PromptLimits, type PromptLine } from './prompt-input.js';

const REQUIRED_COLUMNS = ['projectId', 'prompt'] as const;
const OPTIONAL_COLUMNS = ['jobId', 'chain'] as const;
type Column = (typeof REQUIRED_COLUMNS)[number] | (typeof OPTIONAL_COLUMNS)[number];

/** `atByte`: where the record starts (a record) or a byte inside it (a skipped one), for its line. */
type Parsed = { kind: 'record'; fields: string[]; atByte: number } | { kind: 'skip'; code: string; reason: string; atByte: number };

/** csv-parse's words for a quote left open, which cost every line after it: said plainly. */
const QUOTE_NOT_CLOSED =
  'CSV: a quote opened on this line is never closed, so every line after it was read into this record: none of them is sent (quote a prompt that holds quotes, doubling each " inside it)';

interface HeaderColumns {
  /** Field index of each column the header names. */
  index: Partial<Record<Column, number>>;
  /** Fields a record needs to reach every column the header names. */
  needed: number;
  /** Whether the header names a column at each field index (a trailing comma names none). */
  named: boolean[];
}

export async function parseCsv(text: string, limits: PromptLimits, fileName: string): Promise<ParsedPrompts> {
  const source = text.replace(/^\uFEFF/, '');
  const bytes = Buffer.from(source, 'utf8');
  const items = await parseItems(source);
  const lines = new LineIndex(bytes);
  const prompts: PromptLine[] = [];
  const problems: LineProblem[] = [];
  let columns: HeaderColumns | undefined;
  let skipped: { line: number; code: string } | undefined;
  for (const item of items) {
    const line = lines.lineOfFirstContent(item.atByte);
    if (item.kind === 'skip') {
      // The parser reports each stray quote of a record it skips; the record is one bad line.
      if (!(skipped?.line === line && skipped.code === item.code)) problems.push({ line, reason: item.reason });
      skipped = { line, code: item.code };
      continue;
    }
    const record = item.fields;
    if (!columns) {
      columns = headerColumns(record, fileName);
      continue;
    }
    if (record.every((field) => field.trim() === '')) continue;
    if (record.length < columns.needed) {
      problems.push({ line, reason: `expected ${columns.needed} fields, got ${record.length}` });
      continue;
    }
    // A value where the header names no column is most often an unquoted comma in a prompt: taking
    // the named fields would send the prompt cut at the comma. (Empty trailing cells are fine.)
    const named = columns.named;
    const stray = record.findIndex((value, i) => !named[i] && value.trim() !== '');
    if (stray >= 0) {
      problems.push({ line, reason: `field ${stray + 1} has a value but the header names no column there (quote a prompt that holds commas: "…, …")` });
      continue;
    }
    const field = (column: Column) => (columns!.index[column] === undefined ? undefined : record[columns!.index[column]!]);
    const checked = validatePrompt({ projectId: field('projectId'), jobId: field('jobId'), prompt: field('prompt'), chain: field('chain') }, limits, { emptyIsAbsent: true });
    if ('reason' in checked) problems.push({ line, ...checked });
    else prompts.push({ ...checked, line });
  }
  return { prompts, problems };
}

/**
 * Records and unparseable records, in file order. A record starts where its raw text (blank lines
 * before it included) starts; a skipped record has no end, only the end of its last whole field.
 */
async function parseItems(source: string): Promise<Parsed[]> {
  const items: Parsed[] = [];
  const parser = parse({
    info: true,
    raw: true,
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    on_skip: (err: CsvError | undefined) => {
      if (!err) return;
      const at = (err as CsvError & { bytes?: number }).bytes ?? 0;
      const reason = err.code === 'CSV_QUOTE_NOT_CLOSED' ? QUOTE_NOT_CLOSED : `CSV: ${err.message.replace(/ at line \d+/, '')}`;
      items.push({ kind: 'skip', code: err.code, reason, atByte: at });
    },
  });
  parser.on('readable', () => {
    for (let row = parser.read() as Row | null; row !== null; row = parser.read() as Row | null) {
      items.push({ kind: 'record', fields: row.record, atByte: row.info.bytes - Buffer.byteLength(row.raw, 'utf8') });
    }
  });
  await new Promise<void>((resolve, reject) => {
    parser.on('error', reject);
    parser.on('end', resolve);
    parser.end(source);
  });
  // Skips are reported as they happen, records when read: put them back in file order.
  return items.sort((a, b) => a.atByte - b.atByte);
}

type Row = { record: string[]; info: Info; raw: string };

/** Byte offset → 1-based line number (LF, CRLF and lone CR all end a line). */
class LineIndex {
  private readonly starts: number[] = [0];

  constructor(private readonly bytes: Buffer) {
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i];
      if (b === 0x0a || (b === 0x0d && bytes[i + 1] !== 0x0a)) this.starts.push(i + 1);
    }
  }

  /** The line of the first byte from `from` on that is not a line break (blank lines skipped). */
  lineOfFirstContent(from: number): number {
    let at = from;
    while (at < this.bytes.length && (this.bytes[at] === 0x0a || this.bytes[at] === 0x0d)) at++;
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.starts[mid]! <= at) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  }
}

/** Separators of other exports (a spreadsheet's "CSV" in many locales, TSV) that name the columns all the same. */
const OTHER_SEPARATORS = [
  [';', 'semicolons'],
  ['\t', 'tabs'],
] as const;

/** The other separator a one-field header names every required column with, if any. */
function otherSeparator(names: string[]): (typeof OTHER_SEPARATORS)[number] | undefined {
  if (names.length !== 1) return undefined;
  return OTHER_SEPARATORS.find(([char]) => {
    const parts = names[0]!.split(char).map((part) => part.trim());
    return REQUIRED_COLUMNS.every((name) => parts.includes(name));
  });
}

/** The header must name every required column; without one the whole file is unusable. */
function headerColumns(header: string[], fileName: string): HeaderColumns {
  const names = header.map((name) => name.trim());
  const missing = REQUIRED_COLUMNS.filter((name) => !names.includes(name));
  const separator = missing.length > 0 ? otherSeparator(names) : undefined;
  if (separator) {
    throw new UsageError(`${fileName}: the CSV header is separated by ${separator[1]}, not commas: save the file as comma-separated CSV (or write JSONL)`);
  }
  if (missing.length > 0) {
    throw new UsageError(
      `${fileName}: CSV header must name the columns ${REQUIRED_COLUMNS.join(',')} (and jobId, chain when used); missing ${missing.join(', ')}`,
    );
  }
  const misspelled = misspelledField(names);
  if (misspelled) throw new UsageError(`${fileName}: CSV header: ${misspelled.replace('unknown field', 'unknown column')}`);
  const twice = [...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS].find((column) => names.indexOf(column) !== names.lastIndexOf(column));
  if (twice) throw new UsageError(`${fileName}: CSV header names the column ${twice} twice`);
  const index: Partial<Record<Column, number>> = {};
  for (const column of [...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS]) if (names.includes(column)) index[column] = names.indexOf(column);
  return { index, needed: Math.max(...Object.values(index)) + 1, named: names.map((name) => name !== '') };
}
