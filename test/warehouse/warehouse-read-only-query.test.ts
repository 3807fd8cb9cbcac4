/**
 * Read-only SQL on the real embedded engine: what the gate lets through, what it refuses (and that
 * nothing refused reads, writes or connects), the limits, and cancellation that frees the engine.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openWarehouse,
  QueryCancelledError,
  QueryFailedError,
  QueryLimitError,
  QueryRefusedError,
  runQuery,
  type Warehouse,
} from '../../src/warehouse/index.js';
import { DEFAULT_QUERY_LIMITS } from '../../src/warehouse/query-limits.js';
import { describeEmbeddedOnly, testDatabase, warehouseOptions } from '../support/engine.js';
import { rejection, until } from '../support/wait.js';
import { fileTempDir } from '../support/test-env.js';

const database = testDatabase('mintpipe_query_test');
const dataDir = fileTempDir('wh-query');
const outfile = join(dataDir, 'escaped.txt');
let wh: Warehouse;
let listener: Server;
let listenerUrl: string;
let listenerRequests = 0;

async function rows(sql: string): Promise<Record<string, unknown>[]> {
  const result = await wh.client.query({ query: sql, format: 'JSONEachRow' });
  return result.json<Record<string, unknown>>();
}

/** The pipeline's own view of the database: table names and the sentinel table's rows. */
async function snapshot(): Promise<{ tables: unknown[]; t: unknown[] }> {
  return {
    tables: (await rows(`SELECT name FROM system.tables WHERE database = '${database}' ORDER BY name`)).map((row) => row.name),
    t: (await rows(`SELECT x FROM ${database}.t ORDER BY x`)).map((row) => row.x),
  };
}

/** Runs of the runaway query still on the engine. */
async function runawaysOnEngine(marker: string): Promise<number> {
  const [row] = await rows(`SELECT count() AS n FROM system.processes WHERE query LIKE '%${marker}%' AND query NOT LIKE '%system.processes%'`);
  return Number(row?.n);
}

beforeAll(async () => {
  wh = await openWarehouse({ ...warehouseOptions({ database, dataDir }), database });
  await wh.client.command({ query: `CREATE TABLE ${database}.t (x UInt8) ENGINE = MergeTree ORDER BY x` });
  await wh.client.command({ query: `INSERT INTO ${database}.t VALUES (1), (2), (3)` });
  listener = createServer((_req, res) => {
    listenerRequests += 1;
    res.end('leaked\n');
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const address = listener.address();
  listenerUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await wh?.close();
  await new Promise((resolve) => listener?.close(resolve));
});

describe('a read-only query', () => {
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

  it.each([
    ['SELECT', 'SELECT count() AS n FROM t'],
    ['a qualified table', `SELECT count() AS n FROM ${database}.t`],
    ['WITH … SELECT', 'WITH doubled AS (SELECT x * 2 AS y FROM t) SELECT sum(y) AS n FROM doubled'],
    ['UNION', 'SELECT count() AS n FROM t UNION ALL SELECT 0'],
    ['a join and IN', 'SELECT count() AS n FROM t AS a JOIN (SELECT x FROM t) AS b USING x WHERE x IN (SELECT number FROM numbers(10))'],
    ['a parenthesised SELECT with a trailing ;', '(SELECT count() AS n FROM t);'],
    ['-- # and /* */ comments', "-- lead\nSELECT /* inline ; */ count() AS n # hash ';\nFROM t -- trailing"],
    ['allowed table functions', "SELECT count() AS n FROM numbers(3) AS a, numbers_mt(2) AS b, values('v UInt8', 1) AS c, generateSeries(1, 2) AS d"],
    ['allowed system tables', "SELECT count() AS n FROM system.one, system.databases WHERE name = 'system'"],
    ['SHOW TABLES', 'SHOW TABLES'],
    ['SHOW DATABASES', 'SHOW DATABASES'],
    ['SHOW COLUMNS', 'SHOW COLUMNS FROM t'],
    ['SHOW CREATE TABLE', 'SHOW CREATE TABLE t'],
    ['DESCRIBE', 'DESCRIBE t'],
    ['DESCRIBE of a subquery', 'DESCRIBE (SELECT x FROM t)'],
    ['EXPLAIN', 'EXPLAIN SELECT x FROM t'],
    ['EXPLAIN AST', 'EXPLAIN AST SELECT x FROM t'],
    ['the scalar format()', "SELECT format('{}-{}', 'a', 'b') AS s"],
  ])('accepts %s', async (_what, sql) => {
    const result = await runQuery(wh, sql);
    expect(result.columns.length).toBeGreaterThan(0);
    expect(result.rows.length).toBeGreaterThan(0);
  });

  it('selects from every view in the warehouse, found in system.tables', async () => {
    const views = (await rows(`SELECT name FROM system.tables WHERE database = '${database}' AND engine = 'View' ORDER BY name`)).map((row) => String(row.name));
    expect(views).toEqual(expect.arrayContaining(['visitors', 'visitor_totals', 'prompt_outcomes', 'export_runs']));
    for (const view of views) {
      const result = await runQuery(wh, `SELECT * FROM ${view} LIMIT 1`);
      expect(result.columns.length, view).toBeGreaterThan(0);
    }
  });

  it('runs in a session of its own: readonly does not stick to the pipeline, which still writes', async () => {
    await runQuery(wh, 'SELECT 1');
    expect(await rows("SELECT getSetting('readonly') AS r")).toEqual([{ r: 0 }]);
    await wh.client.command({ query: `INSERT INTO ${database}.t VALUES (4)` });
    await wh.client.command({ query: `ALTER TABLE ${database}.t DELETE WHERE x = 4 SETTINGS mutations_sync = 1` });
    expect((await snapshot()).t).toEqual([1, 2, 3]);
  });

  it('runs on a session where the engine itself refuses writes, files and URLs, for SQL the gate never saw', async () => {
    const session = await wh.readOnlySession(DEFAULT_QUERY_LIMITS);
    try {
      for (const sql of [
        'INSERT INTO t VALUES (9)',
        'DROP TABLE t',
        'SET readonly = 0',
        "SELECT * FROM file('/etc/passwd', 'LineAsString')",
        `SELECT * FROM url('${listenerUrl}/engine', 'LineAsString')`,
        'SELECT 1 SETTINGS readonly = 0',
      ]) {
        const drained = (async () => {
          for await (const chunk of session.stream({ sql, select: sql.startsWith('SELECT') }, 'rows')) void chunk;
        })();
        await expect(drained, sql).rejects.toThrow(/readonly/i);
      }
    } finally {
      await session.close();
    }
    expect((await snapshot()).t).toEqual([1, 2, 3]);
    expect(listenerRequests).toBe(0);
  });

  it('reports an unknown column as the engine says it, in one line', async () => {
    const error = await rejection(runQuery(wh, 'SELECT nosuch FROM t'));
    expect(error).toBeInstanceOf(QueryFailedError);
    expect((error as Error).message).toMatch(/^query: Unknown expression identifier `nosuch`/);
    expect((error as Error).message).not.toContain('\n');
  });
});

// The gate judges in mintpipe, on the same catalog: once, on the embedded engine.
describeEmbeddedOnly('the gate refuses, with one line naming what it refused, and nothing is read, written or fetched', () => {
  let before: Awaited<ReturnType<typeof snapshot>>;
  beforeAll(async () => {
    before = await snapshot();
  });

  const url = (path: string) => `${listenerUrl}/${path}`;
  const cases: Array<[string, () => string, RegExp]> = [
    // Table functions that reach files, the network, programs or other servers.
    ['file()', () => "SELECT * FROM file('/etc/passwd', 'LineAsString')", /^query: table function file\(\) is not allowed/],
    ['url()', () => `SELECT * FROM url('${url('plain')}', 'LineAsString')`, /^query: table function url\(\) is not allowed/],
    ['executable()', () => "SELECT * FROM executable('id', 'LineAsString', 'x String')", /^query: table function executable\(\) is not allowed/],
    ['remote()', () => "SELECT * FROM remote('127.0.0.1:9', system.one)", /^query: table function remote\(\) is not allowed/],
    ['mysql()', () => "SELECT * FROM mysql('127.0.0.1:9', 'db', 't', 'u', 'p')", /^query: table function mysql\(\) is not allowed/],
    ['postgresql()', () => "SELECT * FROM postgresql('127.0.0.1:9', 'db', 't', 'u', 'p')", /^query: table function postgresql\(\) is not allowed/],
    ['s3()', () => `SELECT * FROM s3('${url('bucket/x.csv')}')`, /^query: table function s3\(\) is not allowed/],
    ['hdfs()', () => "SELECT * FROM hdfs('hdfs://127.0.0.1:9/x', 'CSV', 'x String')", /^query: table function hdfs\(\) is not allowed/],
    ['input()', () => "SELECT * FROM input('x String')", /^query: table function input\(\) is not allowed/],
    // Ones a denylist would forget: anything not on the allowlist is refused.
    ['filesystem()', () => "SELECT * FROM filesystem('/')", /^query: table function filesystem\(\) is not allowed/],
    ['sqlite()', () => "SELECT * FROM sqlite('/tmp/x.db', 't')", /^query: table function sqlite\(\) is not allowed/],
    ['merge()', () => "SELECT * FROM merge('system', '^proc')", /^query: table function merge\(\) is not allowed/],
    ['dictionary()', () => "SELECT * FROM dictionary('d')", /^query: table function dictionary\(\) is not allowed/],
    // Escapes hidden inside allowed shapes.
    ['file() in a subquery', () => "SELECT * FROM (SELECT * FROM file('/etc/passwd', 'LineAsString'))", /table function file\(\)/],
    ['url() in a CTE', () => `WITH c AS (SELECT * FROM url('${url('cte')}', 'LineAsString')) SELECT * FROM c`, /table function url\(\)/],
    ['file() in a join', () => "SELECT * FROM t JOIN file('/etc/passwd', 'LineAsString', 'x UInt8') AS f USING x", /table function file\(\)/],
    ['file() in IN (…)', () => "SELECT 1 WHERE 'root' IN (SELECT * FROM file('/etc/passwd', 'LineAsString'))", /table function file\(\)/],
    ['url() as the right side of IN', () => `SELECT 1 WHERE 'x' IN url('${url('in')}', 'LineAsString')`, /table function url\(\)/],
    ['file() in a scalar subquery', () => "SELECT (SELECT any(line) FROM file('/etc/passwd', 'LineAsString'))", /table function file\(\)/],
    ['file() inside numbers()', () => "SELECT * FROM numbers((SELECT count() FROM file('/etc/passwd', 'LineAsString')))", /table function file\(\)/],
    // Scalar functions that read outside the warehouse.
    ['the scalar file()', () => "SELECT file('/etc/passwd')", /^query: function file\(\) is not allowed/],
    ['dictGet()', () => "SELECT dictGet('d', 'v', toUInt64(1))", /^query: function dictGet\(\) is not allowed/],
    ['joinGet()', () => "SELECT joinGet('system.one', 'dummy', 0)", /^query: function joinGet\(\) is not allowed/],
    // Tables outside mintpipe's database and the short system list.
    ['system.processes', () => 'SELECT * FROM system.processes', /^query: table system\.processes is not allowed/],
    ['system.disks', () => 'SELECT path FROM system.disks', /^query: table system\.disks is not allowed/],
    ['system.settings in a join', () => 'SELECT * FROM t JOIN system.settings AS s ON 1', /^query: table system\.settings is not allowed/],
    ['a system table on the right of IN', () => "SELECT 1 WHERE 'x' IN system.users", /^query: table system\.users is not allowed/],
    ['information_schema', () => 'SELECT * FROM information_schema.tables', /^query: table information_schema\.tables is not allowed/],
    // Comments cannot hide a second statement: the engine sees two and refuses.
    ['a # comment hiding a ;', () => "SELECT 1 # '\n; DROP TABLE t; SELECT 1 --'", /^query: only one statement is allowed$/],
    ['a -- comment hiding a ;', () => "SELECT 1 -- '\n; DROP TABLE t; SELECT '", /^query: only one statement is allowed$/],
    ['a /* */ comment beside a ;', () => "SELECT 1 /* ' */; TRUNCATE TABLE t", /^query: only one statement is allowed$/],
    ['two statements', () => 'SELECT 1; DROP TABLE t', /^query: only one statement is allowed$/],
    // Writes and everything else that is not SELECT-like.
    ['DROP', () => 'DROP TABLE t', /^query: DROP statements are not allowed/],
    ['ALTER … DELETE', () => 'ALTER TABLE t DELETE WHERE 1', /^query: ALTER statements are not allowed/],
    ['INSERT', () => 'INSERT INTO t VALUES (9)', /^query: INSERT statements are not allowed/],
    ['WITH … INSERT', () => 'WITH 9 AS v INSERT INTO t SELECT v', /^query: INSERT statements are not allowed/],
    ['CREATE', () => 'CREATE TABLE u (x UInt8) ENGINE = Memory', /^query: CREATE statements are not allowed/],
    ['TRUNCATE', () => 'TRUNCATE TABLE t', /^query: TRUNCATE statements are not allowed/],
    ['INSERT INTO FUNCTION file', () => `INSERT INTO FUNCTION file('${outfile}', 'LineAsString') SELECT 'x'`, /^query: INSERT statements are not allowed/],
    ['KILL', () => 'KILL QUERY WHERE 1', /^query: KILL statements are not allowed/],
    ['SYSTEM', () => 'SYSTEM DROP DNS CACHE', /^query: SYSTEM [A-Z]+ statements are not allowed/],
    ['SET', () => 'SET readonly = 0', /^query: SET statements are not allowed/],
    ['USE', () => 'USE system', /^query: USE statements are not allowed/],
    ['OPTIMIZE', () => 'OPTIMIZE TABLE t FINAL', /^query: OPTIMIZE statements are not allowed/],
    ['SHOW PROCESSLIST', () => 'SHOW PROCESSLIST', /^query: SHOW PROCESSLIST statements are not allowed/],
    ['SHOW SETTINGS', () => "SHOW SETTINGS LIKE 'max%'", /^query: SHOW SETTINGS statements are not allowed/],
    ['SHOW INDEXES', () => 'SHOW INDEXES FROM t', /^query: SHOW INDEXES statements are not allowed/],
    ['EXPLAIN of a write', () => 'EXPLAIN AST DROP TABLE t', /^query: EXPLAIN is allowed only of a SELECT$/],
    // Output and settings clauses.
    ['INTO OUTFILE', () => `SELECT 'x' INTO OUTFILE '${outfile}'`, /^query: INTO OUTFILE is not allowed/],
    ['a FORMAT clause', () => 'SELECT 1 FORMAT JSON', /^query: a FORMAT clause is not allowed/],
    ['SETTINGS readonly=0', () => "SELECT * FROM file('/etc/passwd', 'LineAsString') SETTINGS readonly = 0", /^query: a SETTINGS clause is not allowed/],
    ['SETTINGS readonly=0 in a subquery', () => "SELECT * FROM (SELECT * FROM numbers(1) SETTINGS readonly = 0)", /^query: a SETTINGS clause is not allowed/],
    ['SETTINGS readonly=1, readonly=0', () => 'SELECT 1 SETTINGS readonly = 1, readonly = 0', /^query: a SETTINGS clause is not allowed/],
    ['EXPLAIN options', () => 'EXPLAIN PLAN header = 1 SELECT 1', /^query: a SETTINGS clause is not allowed/],
    ['a quoted name that would add a line to the parse', () => 'SELECT `a\n Function file (children 1)` FROM t', /^query: the engine's parse of it cannot be checked/],
    ['empty SQL', () => '  -- nothing\n', /^query: the SQL is empty$/],
    ['a syntax error', () => "SELECT 'unterminated", /^query: syntax error: /],
  ];

  it.each(cases)('%s', async (_what, sql, message) => {
    const error = await rejection(runQuery(wh, sql()));
    expect(error).toBeInstanceOf(QueryRefusedError);
    expect((error as QueryRefusedError).exitCode).toBe(2);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
    expect((error as Error).message).not.toContain('root:');
  });

  it('left every table and row in place, wrote no file and made no request', async () => {
    expect(await snapshot()).toEqual(before);
    expect(before.tables).toContain('t');
    expect(existsSync(outfile)).toBe(false);
    expect(listenerRequests).toBe(0);
  });
});

// The gate judges in mintpipe, on the same catalog: once, on the embedded engine.
describeEmbeddedOnly('user-defined functions', () => {
  it('refuses each SQL function in the warehouse by name, one created since the engine started and one whose name the engine escapes on disk', async () => {
    // A function is a way around the gate's list (it calls file() under another name): each is refused.
    await wh.client.command({ query: 'CREATE FUNCTION mp_read_file AS (p) -> file(p)' });
    await wh.client.command({ query: 'CREATE FUNCTION `mp-twice ü` AS (x) -> x * 2' });
    for (const [sql, name] of [
      [`SELECT mp_read_file('${outfile}')`, 'mp_read_file'],
      ['SELECT `mp-twice ü`(1)', 'mp-twice ü'],
    ]) {
      const error = await rejection(runQuery(wh, sql!));
      expect(error).toBeInstanceOf(QueryRefusedError);
      expect((error as Error).message).toBe(`query: function ${name}() is not allowed (user-defined)`);
    }
    // Ordinary functions still run.
    expect((await runQuery(wh, 'SELECT plus(1, 2) AS n')).rows).toEqual([{ n: 3 }]);
  });
});

// The gate judges in mintpipe, on the same catalog: once, on the embedded engine.
describeEmbeddedOnly('M4: an escape tried through every allowed statement kind is refused', () => {
  const escapes: Array<[string, () => string, RegExp]> = [
    ['SELECT', () => "SELECT * FROM file('/etc/passwd', 'LineAsString')", /table function file\(\)/],
    ['WITH', () => `WITH c AS (SELECT * FROM url('${listenerUrl}/with', 'LineAsString')) SELECT * FROM c`, /table function url\(\)/],
    ['UNION', () => "SELECT 'x' UNION ALL SELECT * FROM executable('id', 'LineAsString', 'x String')", /table function executable\(\)/],
    ['SHOW', () => `SHOW TABLES INTO OUTFILE '${outfile}'`, /INTO OUTFILE/],
    ['SHOW CREATE', () => 'SHOW CREATE TABLE system.processes', /table system\.processes/],
    // DESCRIBE and EXPLAIN of url() would fetch it to infer its columns.
    ['DESCRIBE', () => `DESCRIBE url('${listenerUrl}/describe', 'LineAsString')`, /table function url\(\)/],
    ['DESCRIBE of a subquery', () => "DESCRIBE (SELECT * FROM filesystem('/'))", /table function filesystem\(\)/],
    ['EXPLAIN', () => `EXPLAIN SELECT * FROM url('${listenerUrl}/explain', 'LineAsString')`, /table function url\(\)/],
    ['EXPLAIN PIPELINE', () => "EXPLAIN PIPELINE SELECT * FROM sqlite('/tmp/x.db', 't')", /table function sqlite\(\)/],
  ];

  it.each(escapes)('%s', async (_kind, sql, message) => {
    const error = await rejection(runQuery(wh, sql()));
    expect(error).toBeInstanceOf(QueryRefusedError);
    expect((error as Error).message).toMatch(message);
  });

  it('made no request and wrote no file', () => {
    expect(listenerRequests).toBe(0);
    expect(existsSync(outfile)).toBe(false);
  });
});

describe('limits', () => {
  it('stops a runaway query at its timeout with one line', async () => {
    const error = await rejection(runQuery(wh, 'SELECT count() FROM numbers(1e12)', { timeoutMs: 300 }));
    expect(error).toBeInstanceOf(QueryLimitError);
    expect((error as QueryLimitError).exitCode).toBe(1);
    expect((error as Error).message).toBe('query: stopped after 300ms (the --timeout limit)');
  });

  it('cuts the result at maxRows and says where', async () => {
    const cut = await runQuery(wh, 'SELECT number FROM numbers(1000)', { maxRows: 10 });
    expect(cut.rows.map((row) => row.number)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(cut.truncatedAt).toBe(10);
    const whole = await runQuery(wh, 'SELECT number FROM numbers(10)', { maxRows: 10 });
    expect(whole.rows).toHaveLength(10);
    expect(whole.truncatedAt).toBeUndefined();
  });

  it('cuts a UNION as a whole', async () => {
    const cut = await runQuery(wh, 'SELECT number FROM numbers(8) UNION ALL SELECT number FROM numbers(8)', { maxRows: 10 });
    expect(cut.rows).toHaveLength(10);
    expect(cut.truncatedAt).toBe(10);
  });

  it('stops a query at the memory cap', async () => {
    const error = await rejection(runQuery(wh, 'SELECT groupArray(number) FROM numbers(1e8)', { maxMemoryBytes: 32 * 1024 * 1024 }));
    expect(error).toBeInstanceOf(QueryLimitError);
    expect((error as Error).message).toBe('query: stopped at the memory limit of 32 MiB');
  });
});

describe('cancellation', () => {
  it('stops an aborted query on the engine, which the pipeline was never waiting behind', async () => {
    const marker = 'cancel_me_1';
    const abort = new AbortController();
    let settled = false;
    const running = runQuery(wh, `SELECT count() AS ${marker} FROM numbers(1e12)`, { timeoutMs: 600_000, signal: abort.signal }).finally(() => {
      settled = true;
    });
    running.catch(() => undefined);
    await until('the runaway on the engine', async () => ((await runawaysOnEngine(marker)) === 1 ? true : undefined));
    // The pipeline's own session answers while the user query still runs.
    expect(await rows('SELECT 1 AS ok')).toEqual([{ ok: 1 }]);
    expect(settled).toBe(false);
    abort.abort();
    const error = await rejection(running);
    expect(error).toBeInstanceOf(QueryCancelledError);
    expect((error as Error).message).toBe('query: cancelled; the query was stopped on the engine');
    await until('the runaway gone from the engine', async () => ((await runawaysOnEngine(marker)) === 0 ? true : undefined), 10_000);
    expect(await rows('SELECT 1 AS ok')).toEqual([{ ok: 1 }]);
  });

  it('refuses at once when already aborted', async () => {
    const abort = new AbortController();
    abort.abort();
    await expect(runQuery(wh, 'SELECT 1', { signal: abort.signal })).rejects.toBeInstanceOf(QueryCancelledError);
  });
});
