/**
 * Building blocks for SQL text. Values normally travel as query parameters; these cover the places
 * parameters cannot go: identifiers, and the SETTINGS clause of an INSERT (per-statement settings
 * must live in the SQL, because the embedded engine turns per-call settings into session `SET`s
 * that outlive the call).
 */
import type { Warehouse } from './warehouse.js';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** True for a plain identifier that needs no quoting (letters, digits, underscore). */
export function isPlainIdentifier(name: string): boolean {
  return IDENTIFIER.test(name);
}

/** `database.table`, qualified because the embedded engine ignores the client's `database` option. */
export function tableName(wh: Pick<Warehouse, 'database'>, table: string): string {
  if (!IDENTIFIER.test(wh.database) || !IDENTIFIER.test(table)) {
    throw new TypeError(`not a plain identifier: ${wh.database}.${table}`);
  }
  return `${wh.database}.${table}`;
}

/** A ClickHouse string literal. */
export function stringLiteral(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
