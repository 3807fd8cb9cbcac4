import { describe, expect, it } from 'vitest';
import { formatRows, type QueryResult } from '../../src/warehouse/index.js';

describe('formatRows', () => {
  const result: QueryResult = {
    columns: [
      { name: 'path', type: 'String' },
      { name: 'human', type: 'UInt64' },
      { name: 'note', type: 'Nullable(String)' },
    ],
    rows: [
      // A server quotes 64-bit integers; the embedded engine does not.
      { path: '/a', human: '18', note: null },
      { path: '/docs, "quoted"', human: 7, note: 'two\nlines' },
    ],
  };

  it('prints JSON as an array of objects with 64-bit counts as numbers', () => {
    expect(JSON.parse(formatRows(result, 'json'))).toEqual([
      { path: '/a', human: 18, note: null },
      { path: '/docs, "quoted"', human: 7, note: 'two\nlines' },
    ]);
  });

  it('prints RFC 4180 CSV: a header, CRLF lines, quoted fields with doubled quotes, empty NULLs', () => {
    expect(formatRows(result, 'csv')).toBe('path,human,note\r\n/a,18,\r\n"/docs, ""quoted""",7,"two\nlines"');
  });

  it('prints an aligned table with numbers on the right and a row count', () => {
    expect(formatRows(result, 'table').split('\n')).toEqual([
      'path             human  note',
      '---------------  -----  ----------',
      '/a                  18  NULL',
      '/docs, "quoted"      7  two\\nlines',
      '(2 rows)',
    ]);
  });

  it('prints an empty result as a header only', () => {
    expect(formatRows({ columns: [{ name: 'x', type: 'UInt8' }], rows: [] }, 'json')).toBe('[]');
    expect(formatRows({ columns: [{ name: 'x', type: 'UInt8' }], rows: [] }, 'csv')).toBe('x');
    expect(formatRows({ columns: [{ name: 'x', type: 'UInt8' }], rows: [] }, 'table')).toBe('x\n-\n(0 rows)');
  });

  it('aligns a table of 300,000 rows (no argument list as long as the rows)', () => {
    const rows = Array.from({ length: 300_000 }, (_, i) => ({ n: i }));
    const lines = formatRows({ columns: [{ name: 'n', type: 'UInt32' }], rows }, 'table').split('\n');
    expect(lines.slice(-2)).toEqual(['299999', '(300000 rows)']);
  });
});
