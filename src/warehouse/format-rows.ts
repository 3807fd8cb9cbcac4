/**
 * Query results as text for the CLI: an aligned table, a JSON array of objects, or RFC 4180 CSV.
 * 64-bit integers arrive as strings from a server; they are printed as numbers in every format.
 * The table is for a terminal: control characters in it are shown as escapes (inert-text.ts).
 * JSON and CSV are data and stay byte-exact, except that `csvSafe` defuses spreadsheet formulas.
 */
import { inertLine } from '../inert-text.js';
import type { QueryColumn, QueryResult } from './query-result.js';

export type RowFormat = 'table' | 'json' | 'csv';

export interface FormatOptions {
  /**
   * CSV only: a string cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return (which a
   * spreadsheet would run as a formula, or read past to one) gets a `'` in front. Cells of numeric
   * columns are numbers and stay as they are.
   * @default false
   */
  csvSafe?: boolean;
}

/** What a spreadsheet reads as the start of a formula (OWASP's list: a leading tab or CR can hide one). */
const FORMULA_START = /^[=+\-@\t\r]/;

const NUMERIC_TYPE = /^(U?Int\d+|Float\d+|Decimal.*)$/;

/** The bare type inside Nullable(...) / LowCardinality(...). */
function baseType(type: string): string {
  const wrapped = /^(?:Nullable|LowCardinality)\((.*)\)$/.exec(type);
  return wrapped ? baseType(wrapped[1]!) : type;
}

function isNumeric(column: QueryColumn): boolean {
  return NUMERIC_TYPE.test(baseType(column.type));
}

/** A cell as JSON would carry it: numeric strings of numeric columns become numbers. */
function jsonValue(column: QueryColumn, value: unknown): unknown {
  if (typeof value === 'string' && isNumeric(column) && value.trim() !== '' && Number.isFinite(Number(value))) {
    return Number(value);
  }
  return value;
}

function text(value: unknown, nullText: string): string {
  if (value === null || value === undefined) return nullText;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function toJson(result: QueryResult): string {
  const rows = result.rows.map((row) =>
    Object.fromEntries(result.columns.map((column) => [column.name, jsonValue(column, row[column.name])])),
  );
  return JSON.stringify(rows, null, 2);
}

function toCsv(result: QueryResult, csvSafe: boolean): string {
  // The column's type decides, not the cell's look: a String column's "-5" is text a sheet would compute.
  const defuse = (column: QueryColumn, cell: string) => (csvSafe && !isNumeric(column) && FORMULA_START.test(cell) ? `'${cell}` : cell);
  const lines = [result.columns.map((column) => csvField(defuse({ name: '', type: 'String' }, column.name))).join(',')];
  for (const row of result.rows) {
    lines.push(result.columns.map((column) => csvField(defuse(column, text(jsonValue(column, row[column.name]), '')))).join(','));
  }
  // Line ends as the engine's own CSV (what --format csv prints without --csv-safe).
  return lines.join('\n');
}

function toTable(result: QueryResult): string {
  // Control characters would break the alignment or drive the terminal; show them escaped.
  const cell = (value: unknown) => inertLine(text(value, 'NULL')).replace(/\t/g, '\\t');
  const header = result.columns.map((column) => cell(column.name));
  const body = result.rows.map((row) => result.columns.map((column) => cell(jsonValue(column, row[column.name]))));
  // A loop, not Math.max(...cells): spreading 100,000s of arguments overflows the stack.
  const widths = header.map((name) => name.length);
  for (const cells of body) cells.forEach((cell, i) => (widths[i] = Math.max(widths[i]!, cell.length)));
  const numeric = result.columns.map(isNumeric);
  const line = (cells: string[]) =>
    cells
      .map((value, i) => (numeric[i] ? value.padStart(widths[i]!) : value.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const count = `(${result.rows.length} ${result.rows.length === 1 ? 'row' : 'rows'})`;
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...body.map(line), count].join('\n');
}

/** Formats a query result; the text has no trailing newline. */
export function formatRows(result: QueryResult, format: RowFormat, options: FormatOptions = {}): string {
  switch (format) {
    case 'json':
      return toJson(result);
    case 'csv':
      return toCsv(result, options.csvSafe ?? false);
    case 'table':
      return toTable(result);
  }
}
