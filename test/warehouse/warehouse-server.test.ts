/**
 * The server engine's wiring against ClickHouse's HTTP interface served by the embedded engine
 * (test/support/clickhouse-http-server.ts: real SQL, users with passwords and a readonly profile):
 * credentials, the database, the migrations, and the read-only user the dashboard and `query` use.
 * The other warehouse tests run on a server in the `server` test project.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { migrations, openWarehouse, runQuery, selectRows, WarehouseUnavailableError } from '../../src/warehouse/index.js';
import { startClickHouseHttp, type RunningClickHouseHttp } from '../support/clickhouse-http.js';
import { freePort } from '../support/ports.js';
import { rejection } from '../support/wait.js';

let server: RunningClickHouseHttp;
const database = `mintpipe_srv_${randomBytes(3).toString('hex')}`;
const app = { user: 'app', password: 's3cret' };

beforeAll(async () => {
  // The app user; a read-only user as docs/deploy.md sets it up (readonly=2); one at readonly=1.
  server = await startClickHouseHttp({ users: ['app:s3cret', 'reader:r3ad:readonly=2', 'strict:str1ct:readonly=1'] });
});

afterAll(async () => {
  await server?.close();
});

describe('server engine', () => {
  it('creates the database and applies every migration once, as the app user', async () => {
    const wh = await openWarehouse({ url: server.url, ...app, database, dataDir: '/nonexistent' });
    try {
      expect(wh.kind).toBe('server');
      const [row] = await selectRows<{ n: number | string }>(wh, `SELECT count() AS n FROM ${database}.schema_migrations`);
      expect(Number(row?.n)).toBe(migrations.length);
    } finally {
      await wh.close();
    }
    const again = await openWarehouse({ url: server.url, ...app, database, dataDir: '/nonexistent' });
    try {
      const [row] = await selectRows<{ n: number | string }>(again, `SELECT count() AS n FROM ${database}.schema_migrations`);
      expect(Number(row?.n)).toBe(migrations.length);
    } finally {
      await again.close();
    }
  });

  it('opens a current warehouse as a read-only user (no DDL), and runs limited queries there while writes are refused', async () => {
    const wh = await openWarehouse({ url: server.url, user: 'reader', password: 'r3ad', database, dataDir: '/nonexistent' });
    try {
      const result = await runQuery(wh, 'SELECT number FROM system.numbers LIMIT 50', { maxRows: 10 });
      expect(result.truncatedAt).toBe(10);
      expect(result.rows).toHaveLength(10);
      const write = await rejection(wh.client.command({ query: `INSERT INTO ${database}.schema_migrations (version, name) VALUES (9999, 'x')` }));
      expect((write as { code?: string }).code).toBe('164');
    } finally {
      await wh.close();
    }
  });

  it('refuses a query as a user at readonly=1 with one line saying what the user needs', async () => {
    const wh = await openWarehouse({ url: server.url, user: 'strict', password: 'str1ct', database, dataDir: '/nonexistent' });
    try {
      const error = await rejection(runQuery(wh, 'SELECT 1'));
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toBe(
        'query: the ClickHouse user has readonly=1, under which no query limit can be set; give it a profile with readonly=2 (docs/deploy.md)',
      );
    } finally {
      await wh.close();
    }
  });

  it('names the server without its password when the credentials are refused', async () => {
    const url = server.url.replace('http://', 'http://app:wrong-s3cret@');
    const opening = openWarehouse({ url, database: 'x', dataDir: '/nonexistent' });
    await expect(opening).rejects.toBeInstanceOf(WarehouseUnavailableError);
    await expect(opening).rejects.toThrow(`the ClickHouse server at ${server.url}/ cannot be used: `);
    await expect(opening).rejects.not.toThrow('s3cret');
  });

  it('fails with one line naming the server when nothing listens there', async () => {
    const closedUrl = `http://127.0.0.1:${await freePort()}`;
    const opening = openWarehouse({ url: closedUrl, database: 'x', dataDir: '/nonexistent' });
    await expect(opening).rejects.toBeInstanceOf(WarehouseUnavailableError);
    await expect(opening).rejects.toThrow(/^the ClickHouse server at http:\/\/127\.0\.0\.1:\d+\/ cannot be used: .*ECONNREFUSED.*; check CLICKHOUSE_URL and its credentials$/);
  });
});
