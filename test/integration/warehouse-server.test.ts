/**
 * The server engine's wiring, against a stand-in that answers ClickHouse's HTTP interface with
 * empty results and records what it was sent (no ClickHouse server runs on this machine; the SQL
 * itself is exercised by the embedded engine in the other warehouse tests; read-only user queries
 * on a server are in read-only-query-server.test.ts).
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.js';
import { openWarehouse, WarehouseUnavailableError } from '../../src/warehouse/index.js';

interface Recorded {
  params: URLSearchParams;
  body: string;
  authorization: string | undefined;
}

let server: Server;
let url: string;
const requests: Recorded[] = [];
let refuseAuth = false;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const params = new URL(req.url ?? '/', 'http://x').searchParams;
      requests.push({ params, body, authorization: req.headers.authorization });
      if (refuseAuth) {
        res.writeHead(516, { 'x-clickhouse-exception-code': '516' });
        res.end('Code: 516. DB::Exception: app: Authentication failed: password is incorrect. (AUTHENTICATION_FAILED)\n');
        return;
      }
      const sql = params.get('query') ?? body;
      if (/FORMAT JSONCompact\s*$/.test(sql)) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ meta: [{ name: 'n', type: 'UInt64' }], data: [['7']], rows: 1 }));
        return;
      }
      res.writeHead(200);
      res.end();
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('server engine', () => {
  it('creates the database without naming it, then names it on every request', async () => {
    requests.length = 0;
    const wh = await openWarehouse({ url, user: 'app', password: 's3cret', database: 'mintpipe_srv', dataDir: '/nonexistent' });
    await wh.close();
    expect(wh.engine).toBe('server');
    expect(requests[0]?.body).toBe('CREATE DATABASE IF NOT EXISTS mintpipe_srv');
    expect(requests[0]?.params.has('database')).toBe(false);
    expect(requests.slice(1).every((request) => request.params.get('database') === 'mintpipe_srv')).toBe(true);
    expect(requests.every((request) => request.authorization === `Basic ${Buffer.from('app:s3cret').toString('base64')}`)).toBe(true);
  });

  it('applies the migrations with qualified names and records them with settings written in the SQL', async () => {
    requests.length = 0;
    const wh = await openWarehouse({ url, database: 'mintpipe_srv', dataDir: '/nonexistent' });
    await wh.close();
    const statements = requests.map((request) => request.params.get('query') ?? request.body);
    expect(statements).toContainEqual(expect.stringContaining('CREATE VIEW IF NOT EXISTS mintpipe_srv.visitors AS'));
    const record = requests.find((request) => request.params.get('query')?.startsWith('INSERT INTO mintpipe_srv.schema_migrations'));
    expect(record?.params.get('query')).toContain("SETTINGS async_insert = 0, insert_deduplicate = 1, insert_deduplication_token = ''");
    expect(JSON.parse(record?.body.trim() ?? '[]')).toEqual([1, 'initial schema', expect.any(String)]);
    // No per-call settings are sent for inserts: nothing could outlive the statement.
    expect(record?.params.has('async_insert')).toBe(false);
  });

  it('names the server without its password when the credentials are refused', async () => {
    refuseAuth = true;
    try {
      const opening = openWarehouse({ url: url.replace('http://', 'http://app:s3cret@'), database: 'x', dataDir: '/nonexistent' });
      await expect(opening).rejects.toBeInstanceOf(WarehouseUnavailableError);
      await expect(opening).rejects.toThrow(`the ClickHouse server at ${url}/ cannot be used: `);
      await expect(opening).rejects.not.toThrow('s3cret');
    } finally {
      refuseAuth = false;
    }
  });

  it('fails with one line naming the server when nothing listens there', async () => {
    const closedUrl = `http://127.0.0.1:${await freePort()}`;
    const opening = openWarehouse({ url: closedUrl, database: 'x', dataDir: '/nonexistent' });
    await expect(opening).rejects.toBeInstanceOf(WarehouseUnavailableError);
    await expect(opening).rejects.toThrow(/^the ClickHouse server at http:\/\/127\.0\.0\.1:\d+\/ cannot be used: .*ECONNREFUSED.*; check CLICKHOUSE_URL and its credentials$/);
  });
});
