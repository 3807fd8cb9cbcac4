/**
 * `mintpipe query` as a user runs it (a separate process on the embedded engine), and the gateway
 * a running mintpipe process serves it through: refusals exit 2 with one line and touch nothing, a
 * runaway is stopped, a cut result says so, and a client that goes away has its query stopped.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryThroughGateway } from '../../src/warehouse/gateway-client.js';
import { serveWarehouseGateway } from '../../src/warehouse/warehouse-gateway.js';
import { openWarehouse, QueryLimitError, QueryRefusedError, type Warehouse } from '../../src/warehouse/index.js';
import { runCli, type CliResult } from '../support/run-cli.js';
import { rejection, until } from '../support/wait.js';

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
  const dataDir = mkdtempSync(join(tmpdir(), 'mintpipe-query-cli-'));
  const outfile = join(dataDir, 'escaped.txt');
  const env = { MINTPIPE_DATA_DIR: dataDir, LOG_LEVEL: 'warn', REDIS_URL: process.env.REDIS_URL };
  const query = (...args: string[]) => runCli(['query', ...args], env);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

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

  it('prints at most --max-rows rows and says on stderr that it cut', async () => {
    const result = await query('SELECT number FROM numbers(50)', '--max-rows', '3', '--format', 'csv');
    expect(result.code).toBe(0);
    expect(result.stdout.split('\r\n')).toEqual(['number', '0', '1', '2\n']);
    expect(result.stderr.trim()).toBe('query: showing the first 3 rows; the result has more (raise --max-rows or narrow the query)');
  });

  it.each([
    ['--timeout', 'soon', /^mintpipe: --timeout: expected a duration/],
    ['--max-rows', '0', /^mintpipe: --max-rows: expected a whole number from 1 to 10000000, got "0"$/],
  ])('refuses a bad %s with exit 2', async (flag, value, message) => {
    expectOneLineRefusal(await query('SELECT 1', flag, value), message);
  });
});

describe('the warehouse gateway of a running process', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mintpipe-query-gw-'));
  let wh: Warehouse;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    wh = await openWarehouse({ database: 'mintpipe', dataDir });
    stop = await serveWarehouseGateway(wh, dataDir);
  });
  afterAll(async () => {
    await stop?.();
    await wh?.close();
    rmSync(dataDir, { recursive: true, force: true });
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

  it('is what npx mintpipe query uses while the process holds the warehouse', async () => {
    const env = { MINTPIPE_DATA_DIR: dataDir, LOG_LEVEL: 'warn', REDIS_URL: process.env.REDIS_URL };
    const ok = await runCli(['query', 'SELECT count() AS n FROM visitors', '--format', 'json'], env);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual([{ n: 0 }]);
    expectOneLineRefusal(await runCli(['query', `SELECT * FROM url('${listenerUrl}/gateway', 'LineAsString')`], env), /table function url\(\)/);
    expect(listenerRequests).toBe(0);
  });

  it('stops the query on the engine when its client disconnects, and the engine is free again', async () => {
    const marker = 'gateway_runaway_1';
    const { url, token } = JSON.parse(readFileSync(join(dataDir, 'warehouse-gateway.json'), 'utf8')) as { url: string; token: string };
    const client = request(`${url}/query`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-mintpipe-token': token } });
    let answered = false;
    client.on('response', () => (answered = true));
    client.on('error', () => undefined);
    client.end(JSON.stringify({ sql: `SELECT count() AS ${marker} FROM numbers(1e12)`, timeoutMs: 600_000 }));
    await until('the runaway on the engine', async () => ((await runawaysOnEngine(marker)) === 1 ? true : undefined));
    client.destroy();
    await until('the runaway gone from the engine', async () => ((await runawaysOnEngine(marker)) === 0 ? true : undefined), 10_000);
    expect(answered).toBe(false);
    const after = await queryThroughGateway(dataDir, 'SELECT 1 AS ok');
    expect(after?.rows).toEqual([{ ok: 1 }]);
  });
});
