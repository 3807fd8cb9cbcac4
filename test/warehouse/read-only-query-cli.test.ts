/**
 * `mintpipe query` as a user runs it (a separate process on the embedded engine), and the gateway
 * a running mintpipe process serves it through: refusals exit 2 with one line and touch nothing, a
 * runaway is stopped, a cut result says so, and a client that goes away has its query stopped.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryThroughGateway } from '../../src/warehouse/gateway-client.js';
import { serveWarehouseGateway } from '../../src/warehouse/warehouse-gateway.js';
import { openWarehouse, QueryLimitError, QueryRefusedError, runQuery, type Warehouse } from '../../src/warehouse/index.js';
import { runCli, type CliResult } from '../support/run-cli.js';
import { rejection, until } from '../support/wait.js';
import { seedWarehouse } from '../support/warehouse-template.js';
import { fileTempDir } from '../support/test-env.js';

let listener: Server;
let listenerUrl: string;
let listenerRequests = 0;

beforeAll(async () => {
  listener = createServer((_req, res) => {
    listenerRequests += 1;
    res.end('leaked\n');
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const address = listener.address();
  listenerUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await new Promise((resolve) => listener?.close(resolve));
});

function expectOneLineRefusal(result: CliResult, message: RegExp): void {
  expect(result.code).toBe(2);
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(message);
  expect(result.stdout).toBe('');
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

describe('npx mintpipe query on the embedded engine (no other process)', () => {
  const dataDir = seedWarehouse(fileTempDir('query-cli'));
  const outfile = join(dataDir, 'escaped.txt');
  const env = { MINTPIPE_DATA_DIR: dataDir, LOG_LEVEL: 'warn', REDIS_URL: process.env.REDIS_URL };
  const query = (...args: string[]) => runCli(['query', ...args], env);

  it('selects from every view', async () => {
    const views = await query("SELECT name FROM system.tables WHERE database = currentDatabase() AND engine = 'View' ORDER BY name", '--format', 'json');
    expect(views.code).toBe(0);
    const names = (JSON.parse(views.stdout) as Array<{ name: string }>).map((row) => row.name);
    expect(names).toEqual(expect.arrayContaining(['visitors', 'visitor_totals', 'prompt_outcomes', 'export_runs']));
    const union = names.map((name) => `SELECT '${name}' AS view, count() AS n FROM (SELECT * FROM ${name})`).join(' UNION ALL ');
    const counted = await query(union, '--format', 'json');
    expect(counted.code).toBe(0);
    expect((JSON.parse(counted.stdout) as Array<{ view: string }>).map((row) => row.view).sort()).toEqual(names);
  });

  const refused: Array<[string, () => string, RegExp]> = [
    ['file()', () => "SELECT * FROM file('/etc/passwd', 'LineAsString')", /^mintpipe: query: table function file\(\) is not allowed/],
    ['url()', () => `SELECT * FROM url('${listenerUrl}/cli', 'LineAsString')`, /^mintpipe: query: table function url\(\) is not allowed/],
    ['executable()', () => "SELECT * FROM executable('id', 'LineAsString', 'x String')", /^mintpipe: query: table function executable\(\) is not allowed/],
    ['an escape through a subquery, a CTE and a join', () => `WITH c AS (SELECT 1 AS x) SELECT * FROM c JOIN (SELECT * FROM url('${listenerUrl}/join', 'LineAsString', 'x UInt8')) AS u USING x`, /table function url\(\)/],
    ["the issue's # comment pattern", () => "SELECT 1 # '\n; DROP TABLE schema_migrations; SELECT 1 --'", /^mintpipe: query: only one statement is allowed$/],
    ['DDL', () => 'DROP TABLE schema_migrations', /^mintpipe: query: DROP statements are not allowed/],
    ['a file write', () => `INSERT INTO FUNCTION file('${outfile}', 'LineAsString') SELECT 'x'`, /^mintpipe: query: INSERT statements are not allowed/],
    ['INTO OUTFILE', () => `SELECT 'x' INTO OUTFILE '${outfile}'`, /^mintpipe: query: INTO OUTFILE is not allowed/],
    ['SETTINGS readonly=0', () => "SELECT * FROM (SELECT * FROM file('/etc/passwd', 'LineAsString') SETTINGS readonly = 0)", /^mintpipe: query: (a SETTINGS clause|table function file\(\)) is not allowed/],
  ];
  for (const [what, sql, message] of refused) {
    it(`refuses ${what} with exit 2 and one line`, async () => {
      const result = await query(sql());
      expectOneLineRefusal(result, message);
      expect(result.stderr).not.toContain('root:');
    });
  }

  it('read, wrote and fetched nothing: the migrations table is still there, no file, no request', async () => {
    const result = await query('SELECT count() AS n FROM schema_migrations', '--format', 'json');
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as Array<{ n: number }>)[0]?.n).toBeGreaterThan(0);
    expect(existsSync(outfile)).toBe(false);
    expect(listenerRequests).toBe(0);
  });

  it('stops a runaway query at --timeout with exit 1 and one line', async () => {
    const result = await query('SELECT count() FROM numbers(1e12)', '--timeout', '1s');
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('mintpipe: query: stopped after 1s (the --timeout limit)');
    expect(result.stdout).toBe('');
  });

  it('reads a bare --timeout number as seconds, as documented, not as milliseconds', async () => {
    const result = await query('SELECT count() FROM numbers(1e12)', '--timeout', '1');
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('mintpipe: query: stopped after 1s (the --timeout limit)');
  });

  it('prints at most --max-rows rows in the table format and says on stderr that it cut, exit 0', async () => {
    const result = await query('SELECT number FROM numbers(50)', '--max-rows', '3');
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')).toEqual(['number', '------', '     0', '     1', '     2', '(3 rows)', '']);
    expect(result.stderr.trim()).toBe('query: showing the first 3 rows; the result has more (raise --max-rows or narrow the query)');
  });

  it('cuts the table format at 100000 rows unless --max-rows says otherwise', async () => {
    const result = await query('SELECT number FROM numbers(100001)');
    expect(result.code).toBe(0);
    // The engine writes every block with its header: each row is a number, in order, once.
    expect(result.stdout.trim().split('\n').slice(-2)).toEqual([' 99999', '(100000 rows)']);
    expect(result.stdout.split('\n').filter((line) => line.trim() === 'number')).toHaveLength(1);
    expect(result.stderr).toMatch(/^query: showing the first 100000 rows/);
  });

  it('prints every row in csv and json, with no default cap', async () => {
    const csv = await query('SELECT number FROM numbers(100001)', '--format', 'csv');
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stderr).toBe('');
    const lines = csv.stdout.split('\n');
    expect(lines).toHaveLength(100_003);
    expect([lines[0], lines[1], lines.at(-2), lines.at(-1)]).toEqual(['"number"', '0', '100000', '']);
    const json = await query('SELECT number, toString(number) AS s FROM numbers(100001)', '--format', 'json');
    expect(json.code, json.stderr).toBe(0);
    const rows = JSON.parse(json.stdout) as Array<{ number: number; s: string }>;
    expect(rows).toHaveLength(100_001);
    expect(rows.at(-1)).toEqual({ number: 100_000, s: '100000' });
  });

  it('fails with exit 1 and one line when --max-rows cuts a csv or json result, leaving the rows printed', async () => {
    const csv = await query('SELECT number FROM numbers(50)', '--max-rows', '3', '--format', 'csv');
    expect(csv.code).toBe(1);
    expect(csv.stdout).toBe('"number"\n0\n1\n2\n');
    expect(csv.stderr).toBe('mintpipe: query: the result was cut at 3 rows (--max-rows 3); the output is incomplete\n');
    const json = await query('SELECT number FROM numbers(50)', '--max-rows', '3', '--format', 'json');
    expect(json.code).toBe(1);
    // The array is never closed: a program that ignores the exit code cannot parse it as complete.
    expect(json.stdout).toBe('[\n{"number":0},\n{"number":1},\n{"number":2}');
    expect(json.stderr).toBe('mintpipe: query: the result was cut at 3 rows (--max-rows 3); the output is incomplete\n');
  });

  it('prints a csv result of exactly --max-rows rows in full, exit 0', async () => {
    const csv = await query('SELECT number FROM numbers(3)', '--max-rows', '3', '--format', 'csv');
    expect(csv).toEqual({ code: 0, stdout: '"number"\n0\n1\n2\n', stderr: '' });
  });

  it.each([
    ['--timeout', 'soon', /^mintpipe: --timeout: expected a duration/],
    ['--max-rows', '0', /^mintpipe: --max-rows: expected a whole number from 1 to 10000000, got "0"$/],
  ])('refuses a bad %s with exit 2', async (flag, value, message) => {
    expectOneLineRefusal(await query('SELECT 1', flag, value), message);
  });
});

describe('the warehouse gateway of a running process', () => {
  const dataDir = seedWarehouse(fileTempDir('query-gw'));
  let wh: Warehouse;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    wh = await openWarehouse({ database: 'mintpipe', dataDir });
    stop = await serveWarehouseGateway(wh, dataDir);
  });
  afterAll(async () => {
    await stop?.();
    await wh?.close();
  });

  async function runawaysOnEngine(marker: string): Promise<number> {
    const result = await wh.client.query({
      query: `SELECT count() AS n FROM system.processes WHERE query LIKE '%${marker}%' AND query NOT LIKE '%system.processes%'`,
      format: 'JSONEachRow',
    });
    return Number((await result.json<{ n: number }>())[0]?.n);
  }

  it('answers queries, refusals and limits with the same verdicts as the engine itself', async () => {
    const answer = await queryThroughGateway(dataDir, 'SELECT number FROM numbers(5)', { maxRows: 2 });
    expect(answer).toEqual({ columns: [{ name: 'number', type: 'UInt64' }], rows: [{ number: 0 }, { number: 1 }], truncatedAt: 2 });
    const refusal = await rejection(queryThroughGateway(dataDir, "SELECT * FROM file('/etc/passwd', 'LineAsString')"));
    expect(refusal).toBeInstanceOf(QueryRefusedError);
    expect((refusal as QueryRefusedError).exitCode).toBe(2);
    expect((refusal as Error).message).toMatch(/^query: table function file\(\) is not allowed/);
    const limit = await rejection(queryThroughGateway(dataDir, 'SELECT count() FROM numbers(1e12)', { timeoutMs: 300 }));
    expect(limit).toBeInstanceOf(QueryLimitError);
    expect((limit as QueryLimitError).exitCode).toBe(1);
  });

  // Longer than one command-line argument may be: such SQL comes from `prompts send --from-query-file`.
  it('refuses SQL longer than the engine parses in one line that says so, on the engine and through the gateway, also past what the gateway takes', async () => {
    const tries = [300_000, 2_000_000].map((length) => `SELECT '${'x'.repeat(length)}' AS long`).flatMap((sql) => [
      [sql, () => queryThroughGateway(dataDir, sql)] as const,
      [sql, () => runQuery(wh, sql)] as const,
    ]);
    for (const [sql, run] of tries) {
      const refusal = await rejection(run());
      expect(refusal, String(sql.length)).toBeInstanceOf(QueryRefusedError);
      expect((refusal as Error).message).toBe(`query: the SQL is ${sql.length} bytes, more than the engine parses at once (its max_query_size, 256 KiB by default)`);
    }
  });

  it('is what npx mintpipe query uses while the process holds the warehouse', async () => {
    const env = { MINTPIPE_DATA_DIR: dataDir, LOG_LEVEL: 'warn', REDIS_URL: process.env.REDIS_URL };
    const ok = await runCli(['query', 'SELECT count() AS n FROM visitors', '--format', 'json'], env);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual([{ n: 0 }]);
    expectOneLineRefusal(await runCli(['query', `SELECT * FROM url('${listenerUrl}/gateway', 'LineAsString')`], env), /table function url\(\)/);
    expect(listenerRequests).toBe(0);
  });

  /** Sends a query to the gateway as raw HTTP; the caller destroys the request. */
  function rawQuery(body: object) {
    const { url, token } = JSON.parse(readFileSync(join(dataDir, 'warehouse-gateway.json'), 'utf8')) as { url: string; token: string };
    const client = request(`${url}/query`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-mintpipe-token': token } });
    const answer = new Promise<{ status: number; body: string }>((resolve) => {
      client.on('response', (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
    });
    client.on('error', () => undefined);
    client.end(JSON.stringify(body));
    return { client, answer };
  }

  it('streams csv and json through the gateway: every row, or exit 1 with one line when --max-rows cuts', async () => {
    const env = { MINTPIPE_DATA_DIR: dataDir, LOG_LEVEL: 'warn', REDIS_URL: process.env.REDIS_URL };
    const all = await runCli(['query', 'SELECT number FROM numbers(100001)', '--format', 'csv'], env);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout.split('\n')).toHaveLength(100_003);
    const cut = await runCli(['query', 'SELECT number FROM numbers(50)', '--max-rows', '2', '--format', 'json'], env);
    expect(cut).toEqual({ code: 1, stdout: '[\n{"number":0},\n{"number":1}', stderr: 'mintpipe: query: the result was cut at 2 rows (--max-rows 2); the output is incomplete\n' });
  });

  it('reports a limit that stops a query after its first rows were sent: the rows stay, exit 1 and one line', async () => {
    const env = { MINTPIPE_DATA_DIR: dataDir, LOG_LEVEL: 'warn', REDIS_URL: process.env.REDIS_URL };
    const result = await runCli(['query', 'SELECT 1 AS n UNION ALL SELECT count() AS n FROM numbers(1e12)', '--format', 'csv', '--timeout', '1s'], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('"n"\n1\n');
    expect(result.stderr).toBe('mintpipe: query: stopped after 1s (the --timeout limit)\n');
  });

  it('runs at most 2 queries at once and refuses a third with 429 and one line, which query prints with exit 1', async () => {
    const marker = 'gateway_busy_1';
    const runaways = [1, 2].map(() => rawQuery({ sql: `SELECT count() AS ${marker} FROM numbers(1e12)`, timeoutMs: 600_000 }));
    try {
      await until('both runaways on the engine', async () => ((await runawaysOnEngine(marker)) === 2 ? true : undefined));
      const third = rawQuery({ sql: 'SELECT 1' });
      const refused = await third.answer;
      expect(refused.status).toBe(429);
      expect(refused.body.trim().split('\n')).toHaveLength(1);
      expect(JSON.parse(refused.body)).toEqual({ kind: 'busy', error: expect.stringMatching(/^query: the warehouse gateway is busy: it runs at most 2 queries at once \(MINTPIPE_GATEWAY_CONCURRENCY\)/) });
      const env = { MINTPIPE_DATA_DIR: dataDir, LOG_LEVEL: 'warn', REDIS_URL: process.env.REDIS_URL };
      const cli = await runCli(['query', 'SELECT 1', '--format', 'csv'], env);
      expect(cli.code).toBe(1);
      expect(cli.stdout).toBe('');
      expect(cli.stderr).toMatch(/^mintpipe: query: the warehouse gateway is busy: it runs at most 2 queries at once \(MINTPIPE_GATEWAY_CONCURRENCY\); try again when one has finished\n$/);
    } finally {
      for (const runaway of runaways) runaway.client.destroy();
    }
    await until('the runaways gone from the engine', async () => ((await runawaysOnEngine(marker)) === 0 ? true : undefined), 10_000);
    await until('a query answered again', async () => ((await queryThroughGateway(dataDir, 'SELECT 1 AS ok'))?.rows.length === 1 ? true : undefined), 10_000);
  });

  it('stops the query on the engine when its client disconnects, and the engine is free again', async () => {
    const marker = 'gateway_runaway_1';
    const { client } = rawQuery({ sql: `SELECT count() AS ${marker} FROM numbers(1e12)`, timeoutMs: 600_000 });
    let answered = false;
    client.on('response', () => (answered = true));
    await until('the runaway on the engine', async () => ((await runawaysOnEngine(marker)) === 1 ? true : undefined));
    client.destroy();
    await until('the runaway gone from the engine', async () => ((await runawaysOnEngine(marker)) === 0 ? true : undefined), 10_000);
    expect(answered).toBe(false);
    const after = await queryThroughGateway(dataDir, 'SELECT 1 AS ok');
    expect(after?.rows).toEqual([{ ok: 1 }]);
  });

  /** A query as any local user could send it to the gateway's loopback port, with these headers. */
  async function ask(headers: Record<string, string>): Promise<{ status: number; body: string }> {
    const { url } = JSON.parse(readFileSync(join(dataDir, 'warehouse-gateway.json'), 'utf8')) as { url: string };
    const response = await fetch(`${url}/query`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ sql: 'SELECT 42 AS answer' }) });
    return { status: response.status, body: await response.text() };
  }

  it('answers a query that carries the token of its 0600 file', async () => {
    const { token } = JSON.parse(readFileSync(join(dataDir, 'warehouse-gateway.json'), 'utf8')) as { token: string };
    const answered = await ask({ 'x-mintpipe-token': token });
    expect([answered.status, answered.body]).toEqual([200, expect.stringContaining('42')]);
  });

  it.each([
    ['no token', {}],
    ['a wrong token', { 'x-mintpipe-token': 'guessed' }],
    ['an empty token', { 'x-mintpipe-token': '' }],
  ])('says nothing (404, no body) to a query with %s: another local user reaches its port', async (_what, headers: Record<string, string>) => {
    expect(await ask(headers)).toEqual({ status: 404, body: '' });
  });
});
