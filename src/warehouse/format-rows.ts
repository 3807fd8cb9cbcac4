/**
 * Query results as text for the CLI: an aligned table, a JSON array of objects, or RFC 4180 CSV.
 * 64-bit integers arrive as strings from a server; they are printed as numbers in every format.
 */
import type { QueryColumn, QueryResult } from './read-only-query.js';

export type RowFormat = 'table' | 'json' | 'csv';

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

function toCsv(result: QueryResult): string {
  const lines = [result.columns.map((column) => csvField(column.name)).join(',')];
  for (const row of result.rows) {
    lines.push(result.columns.map((column) => csvField(text(jsonValue(column, row[column.name]), ''))).join(','));
  }
  return lines.join('\r\n');
}

function toTable(result: QueryResult): string {
  // Control characters would break the alignment; show them escaped.
  const cell = (value: unknown) => text(value, 'NULL').replace(/\r/g, '\\r').replace(/\n/g, '\\n').replace(/\t/g, '\\t');
  const header = result.columns.map((column) => column.name);
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
export function formatRows(result: QueryResult, format: RowFormat): string {
  switch (format) {
    case 'json':
      return toJson(result);
    case 'csv':
      return toCsv(result);
    case 'table':
      return toTable(result);
  }
}
