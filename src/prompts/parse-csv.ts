/**
 * CSV prompt files (RFC 4180): a header naming `projectId`, `jobId` and `prompt` (any order,
 * other columns ignored), quoted fields may hold commas, quotes ("") and newlines. A record that
 * cannot be parsed is reported at the line where it starts and parsing goes on with the next.
 */
import { parse, type CsvError, type Info } from 'csv-parse';
import { UsageError } from '../errors.js';
import type { ParsedPrompts } from './parse-jsonl.js';
import { validatePrompt, type LineProblem, type PromptLimits, type PromptLine } from './prompt-input.js';

const REQUIRED_COLUMNS = ['projectId', 'jobId', 'prompt'] as const;

/**
 * csv-parse reports the line where a record (or error) ends; the start is that minus the line
 * breaks inside it. `raw` may begin with skipped blank lines and end with the record delimiter.
 */
function startLine(endLine: number, raw: string | undefined): number {
  if (raw === undefined) return endLine;
  const body = raw.replace(/^(?:\r?\n|\r)+/, '').replace(/(?:\r?\n|\r)$/, '');
  const breaks = body.match(/\r?\n|\r/g)?.length ?? 0;
  return Math.max(1, endLine - breaks);
}

interface CsvRow {
  record: string[];
  info: Info;
  raw: string;
}

export async function parseCsv(text: string, limits: PromptLimits, fileName: string): Promise<ParsedPrompts> {
  const prompts: PromptLine[] = [];
  const problems: LineProblem[] = [];
  let columns: HeaderColumns | undefined;

  const parser = parse({
    bom: true,
    info: true,
    raw: true,
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    on_skip: (err: CsvError | undefined, raw: string | undefined) => {
      if (!err) return;
      problems.push({ line: startLine(Number(err.lines ?? 0), raw), reason: `CSV: ${err.message.replace(/ at line \d+/, '')}` });
    },
  });
  const rows: CsvRow[] = [];
  await new Promise<void>((resolve, reject) => {
    parser.on('readable', () => {
      for (let row = parser.read() as CsvRow | null; row !== null; row = parser.read() as CsvRow | null) rows.push(row);
    });
    parser.on('error', reject);
    parser.on('end', resolve);
    parser.end(text);
  });

  for (const { record, info, raw } of rows) {
    const line = startLine(info.lines, raw);
    if (!columns) {
      columns = headerColumns(record, fileName);
      continue;
    }
    if (record.every((field) => field.trim() === '')) continue;
    if (record.length < columns.needed) {
      problems.push({ line, reason: `expected ${columns.needed} fields, got ${record.length}` });
      continue;
    }
    const fields: Record<string, unknown> = {};
    for (const name of REQUIRED_COLUMNS) fields[name] = record[columns.index[name]];
    const checked = validatePrompt(fields, limits);
    if ('reason' in checked) problems.push({ line, reason: checked.reason });
    else prompts.push({ ...checked, line });
  }
  problems.sort((a, b) => a.line - b.line);
  return { prompts, problems };
}

interface HeaderColumns {
  index: Record<(typeof REQUIRED_COLUMNS)[number], number>;
  /** Fields a record needs to reach every required column. */
  needed: number;
}

/** The header must name every required column; without one the whole file is unusable. */
function headerColumns(header: string[], fileName: string): HeaderColumns {
  const names = header.map((name) => name.trim());
  const missing = REQUIRED_COLUMNS.filter((name) => !names.includes(name));
  if (missing.length > 0) {
    throw new UsageError(`${fileName}: CSV header must name the columns ${REQUIRED_COLUMNS.join(',')}; missing ${missing.join(', ')}`);
  }
  const index = { projectId: names.indexOf('projectId'), jobId: names.indexOf('jobId'), prompt: names.indexOf('prompt') };
  return { index, needed: Math.max(index.projectId, index.jobId, index.prompt) + 1 };
}
