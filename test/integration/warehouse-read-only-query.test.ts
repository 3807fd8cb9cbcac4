import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { assertReadOnly, formatRows, openWarehouse, runQuery, type QueryResult, type Warehouse } from '../../src/warehouse/index.js';

describe('assertReadOnly', () => {
  it.each([
    ['SELECT 1', 'SELECT 1'],
    ['  select * from visitors;  ', 'select * from visitors'],
    ['WITH t AS (SELECT 1 AS x) SELECT x FROM t', 'WITH t AS (SELECT 1 AS x) SELECT x FROM t'],
    ['SHOW TABLES', 'SHOW TABLES'],
    ['DESCRIBE visitors', 'DESCRIBE visitors'],
    ['desc visitors', 'desc visitors'],
    ['EXPLAIN SELECT 1', 'EXPLAIN SELECT 1'],
    ['(SELECT 1)', '(SELECT 1)'],
    ['-- the count\nSELECT count() FROM visitors -- trailing\n;', 'SELECT count() FROM visitors'],
    ["/* lead */ SELECT ';' AS s", "SELECT ';' AS s"],
    ["SELECT 'it''s; DROP TABLE x' AS s", "SELECT 'it''s; DROP TABLE x' AS s"],
    ['SELECT `a;b` FROM t', 'SELECT `a;b` FROM t'],
  ])('accepts %j', (sql, statement) => {
    expect(assertReadOnly(sql)).toBe(statement);
  });

  it.each([
    ['INSERT INTO visitors VALUES (1)', 'query: only SELECT, SHOW, DESCRIBE, EXPLAIN or WITH statements are allowed, got INSERT'],
    ['  -- sneaky\n drop table visitors', 'query: only SELECT, SHOW, DESCRIBE, EXPLAIN or WITH statements are allowed, got DROP'],
    ['ALTER TABLE visitor_rows DELETE WHERE 1', 'got ALTER'],
    // The engine runs this one: WITH may lead an INSERT.
    ['WITH 1 AS x INSERT INTO visitor_rows (human) SELECT x', 'got INSERT'],
    ['SELECT 1; DROP TABLE x', 'query: only one statement is allowed'],
    ['SELECT 1;;SELECT 2', 'query: only one statement is allowed'],
    ["SELECT 1 /* ; */ ; INSERT INTO t VALUES ('a')", 'query: only one statement is allowed'],
    ["SELECT * FROM visitors INTO OUTFILE '/tmp/x.csv'", 'query: INTO OUTFILE is not allowed'],
    ['SELECT * FROM visitors FORMAT CSV', 'query: leave out the FORMAT clause'],
    ['', 'query: the SQL is empty'],
    ['-- nothing\n;', 'query: the SQL is empty'],
    ["SELECT 'unterminated", 'query: unterminated string'],
    ['SELECT 1 /* open', 'query: unterminated /* comment'],
  ])('refuses %j', (sql, message) => {
    expect(() => assertReadOnly(sql)).toThrow(UsageError);
    expect(() => assertReadOnly(sql)).toThrow(message);
  });

  it('does not mistake keywords inside strings for INTO OUTFILE', () => {
    expect(assertReadOnly("SELECT 'into outfile' AS s")).toBe("SELECT 'into outfile' AS s");
  });
});

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
});

describe('runQuery', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mintpipe-wh-query-'));
  let wh: Warehouse;

  beforeAll(async () => {
    wh = await openWarehouse({ database: 'mintpipe_query_test', dataDir });
  });

  afterAll(async () => {
    await wh?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('returns column names and types with rows as objects', async () => {
    const result = await runQuery(wh, "SELECT toUInt64(42) AS n, 'x' AS s, toDate('2024-01-02') AS d -- comment");
    expect(result).toEqual({
      columns: [
        { name: 'n', type: 'UInt64' },
        { name: 's', type: 'String' },
        { name: 'd', type: 'Date' },
      ],
      rows: [{ n: 42, s: 'x', d: '2024-01-02' }],
    });
  });

  it('refuses a write before it reaches the engine', async () => {
    await expect(runQuery(wh, 'SELECT 1; DROP DATABASE mintpipe_query_test')).rejects.toBeInstanceOf(UsageError);
    const still = await runQuery(wh, "SELECT count() AS n FROM system.databases WHERE name = 'mintpipe_query_test'");
    expect(still.rows).toEqual([{ n: 1 }]);
  });

  it('answers SHOW TABLES with the public views', async () => {
    const result = await runQuery(wh, 'SHOW TABLES');
    expect(result.rows.map((row) => row.name)).toEqual(
      expect.arrayContaining(['visitors', 'visitor_totals', 'prompt_outcomes', 'export_runs']),
    );
  });
});
