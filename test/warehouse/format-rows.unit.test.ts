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
    expect(formatRows(result, 'csv')).toBe('path,human,note\n/a,18,\n"/docs, ""quoted""",7,"two\nlines"');
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

  const hostile: QueryResult = {
    columns: [
      { name: 'cell', type: 'String' },
      { name: 'delta', type: 'Int32' },
      { name: 'big', type: 'Nullable(Int64)' },
      { name: 'label', type: 'LowCardinality(Nullable(String))' },
    ],
    rows: [
      { cell: '=HYPERLINK("http://x","y")', delta: -5, big: '-7', label: '+1' },
      { cell: '-5', delta: 3, big: null, label: '@SUM(A1)' },
      { cell: 'plain', delta: 0, big: '1', label: 'a=b' },
      { cell: '\t=1+1', delta: 1, big: '2', label: '\r@SUM(A1)' },
    ],
  };

  it('with csvSafe, puts a quote before text cells starting with = + - @ or a tab or CR, and leaves numeric columns numbers', () => {
    expect(formatRows(hostile, 'csv', { csvSafe: true }).split('\n')).toEqual([
      'cell,delta,big,label',
      `"'=HYPERLINK(""http://x"",""y"")",-5,-7,'+1`,
      "'-5,3,,'@SUM(A1)",
      'plain,0,1,a=b',
      '\'\t=1+1,1,2,"\'\r@SUM(A1)"',
    ]);
  });

  it('without csvSafe, prints CSV cells as they are', () => {
    expect(formatRows(hostile, 'csv').split('\n')[2]).toBe('-5,3,,@SUM(A1)');
  });

  it('shows control characters in table cells and headers as visible escapes, and keeps JSON and CSV byte-exact', () => {
    const raw: QueryResult = { columns: [{ name: 'p\u001b[31m', type: 'String' }], rows: [{ 'p\u001b[31m': '/a\u001b[2J\u001b]0;pwned\u0007\u009b\r\n/b\tc' }] };
    const table = formatRows(raw, 'table');
    expect(table.split('\n').slice(0, 3)).toEqual(['p\\x1b[31m', expect.any(String), '/a\\x1b[2J\\x1b]0;pwned\\x07\\u009b\\r\\n/b\\tc']);
    expect(table).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(JSON.parse(formatRows(raw, 'json'))).toEqual(raw.rows);
    expect(formatRows(raw, 'csv')).toBe(`p\u001b[31m\n"/a\u001b[2J\u001b]0;pwned\u0007\u009b\r\n/b\tc"`);
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
