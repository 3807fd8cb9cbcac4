/**
 * Read-only queries against a ClickHouse server. No server runs on this machine, so a stand-in
 * answers ClickHouse's HTTP interface by running each request on chDB in a session of its own,
 * with the request's settings applied first (as a server does) and recorded: this shows that
 * every request of a user query carries readonly=1 and the limits, and that cancelling sends a
 * KILL for the query's own id.
 */
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { Session } from 'chdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWarehouse, QueryCancelledError, QueryRefusedError, runQuery, type Warehouse } from '../../src/warehouse/index.js';
import { rejection, until } from '../support/wait.js';
import { fileTempDir } from '../support/test-env.js';

/** Parameters clickhouse-js sends that are not engine settings. */
const NOT_SETTINGS = new Set(['query', 'query_id', 'database', 'default_format']);
/** Settings only a server's HTTP layer knows (chDB would call them unknown). */
const HTTP_ONLY = new Set(['cancel_http_readonly_queries_on_client_close', 'wait_end_of_query', 'send_progress_in_http_headers', 'enable_http_compression']);

interface Recorded {
  sql: string;
  settings: Array<[string, string]>;
  queryId: string | null;
}

const dataDir = fileTempDir('ro-server');
const requests: Recorded[] = [];
let server: Server;
let wh: Warehouse;

beforeAll(async () => {
  const enginePath = join(dataDir, 'engine');
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const params = new URL(req.url ?? '/', 'http://x').searchParams;
      const inUrl = params.get('query');
      let sql = inUrl ? `${inUrl}\n${body}` : body;
      const settings = [...params].filter(([name]) => !NOT_SETTINGS.has(name) && !name.startsWith('param_'));
      requests.push({ sql, settings, queryId: params.get('query_id') });
      // A server finds a query by its id; chDB by the marker this stand-in gives it.
      sql = sql.replace(/^KILL QUERY WHERE query_id = '([^']+)'/, "KILL QUERY WHERE Settings['log_comment'] = '$1'");
      const set = settings
        .filter(([name]) => !HTTP_ONLY.has(name))
        .map(([name, value]) => `SET ${name} = ${/^-?\d+(\.\d+)?$/.test(value) ? value : `'${value}'`}`);
      if (params.get('query_id')) set.unshift(`SET log_comment = '${params.get('query_id')}'`);
      const database = params.get('database');
      const prelude = [...(database ? [`USE ${database}`] : []), ...set].join('; ');
      // Parameter values arrive escaped as in TabSeparated, as a server expects them.
      const unescape = (value: string) => value.replace(/\\(.)/g, (_m, c: string) => ({ n: '\n', t: '\t', r: '\r', '0': '\0' })[c] ?? c);
      const queryParams = Object.fromEntries([...params].filter(([name]) => name.startsWith('param_')).map(([name, value]) => [name.slice(6), unescape(value)]));
      const format = params.get('default_format') ?? 'TSV';
      const session = new Session(enginePath);
      const running = (async () => {
        if (prelude) await session.queryAsync(prelude, { format: 'TSV' });
        return Object.keys(queryParams).length > 0 ? session.queryBindAsync(sql, queryParams, { format }) : session.queryAsync(sql, { format });
      })();
      running.then(
        (result) => {
          session.close();
          res.writeHead(200, { 'content-type': 'application/json' }).end(Buffer.from(result.bytes()));
        },
        (err: Error) => {
          session.close();
          const code = /^Code: (\d+)\./.exec(err.message)?.[1] ?? '1000';
          res.writeHead(500, { 'x-clickhouse-exception-code': code }).end(err.message);
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  wh = await openWarehouse({ url, database: 'mintpipe_srv', dataDir: '/nonexistent' });
});

afterAll(async () => {
  await wh?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

describe('read-only queries on a server', () => {
  it('asks the user profile for readonly first, then sends readonly=1 last on every request, and the limits with the query', async () => {
    requests.length = 0;
    const result = await runQuery(wh, 'SELECT count() AS n FROM visitors', { timeoutMs: 5_000, maxRows: 7 });
    expect(result.rows.map((row) => Number(row.n))).toEqual([0]);
    expect(requests.length).toBeGreaterThanOrEqual(4);
    // The profile's own readonly is read as the server sets it, with nothing sent to change it.
    const [probe, ...gated] = requests;
    expect(probe!.sql).toContain("getSetting('readonly')");
    expect(probe!.settings.map(([name]) => name)).not.toContain('readonly');
    for (const request of gated) {
      expect(request.settings.map(([name]) => name).at(-1)).toBe('readonly');
      expect(Object.fromEntries(request.settings)).toMatchObject({ readonly: '1' });
    }
    const run = requests.at(-1)!;
    expect(run.sql.trim()).toBe('SELECT count() AS n FROM visitors');
    expect(run.queryId).toMatch(/^mintpipe-query-/);
    expect(Object.fromEntries(run.settings)).toMatchObject({
      readonly: '1',
      max_execution_time: '5',
      max_result_rows: '8',
      result_overflow_mode: 'break',
      cancel_http_readonly_queries_on_client_close: '1',
    });
  });

  it('refuses file() before anything runs it', async () => {
    requests.length = 0;
    const error = await rejection(runQuery(wh, "SELECT * FROM file('/etc/passwd', 'LineAsString')"));
    expect(error).toBeInstanceOf(QueryRefusedError);
    expect((error as Error).message).toMatch(/^query: table function file\(\) is not allowed/);
    // Only the rendering (as a parameter), its parse, and the catalog reached the server.
    const naming = requests.filter((request) => request.sql.includes('file('));
    expect(naming.map((request) => request.sql.slice(0, 12))).toEqual(['EXPLAIN AST ']);
    expect(requests.filter((request) => request.queryId?.startsWith('mintpipe-query-'))).toEqual([]);
  });

  it('kills a cancelled query by its own id', async () => {
    requests.length = 0;
    const abort = new AbortController();
    const running = runQuery(wh, 'SELECT count() AS server_runaway FROM numbers(1e12)', { timeoutMs: 600_000, signal: abort.signal });
    running.catch(() => undefined);
    const run = await until('the runaway sent', async () => requests.find((request) => request.sql.includes('server_runaway') && request.queryId?.startsWith('mintpipe-query-')));
    abort.abort();
    expect(await rejection(running)).toBeInstanceOf(QueryCancelledError);
    await until('the KILL sent', async () => requests.find((request) => request.sql.startsWith(`KILL QUERY WHERE query_id = '${run.queryId}'`)));
    const gone = async () => {
      const session = new Session(join(dataDir, 'engine'));
      try {
        const text = (await session.queryAsync("SELECT count() FROM system.processes WHERE query LIKE '%server_runaway%' AND query NOT LIKE '%system.processes%'", { format: 'TSV' })).text();
        return text.trim() === '0' ? true : undefined;
      } finally {
        session.close();
      }
    };
    // KILL QUERY is asynchronous: the query stops at its next check, later on a busy machine.
    await until('the runaway gone from the engine', gone, 30_000);
  });
});
