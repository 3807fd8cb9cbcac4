/**
 * The embedded warehouse can be open in one process only. The process that holds it (start,
 * worker, dashboard) serves read-only queries to the other mintpipe commands of the same data dir
 * over loopback HTTP, with a random token in a 0600 file beside the data: so `mintpipe query`
 * works while `mintpipe start` runs. Each query runs in its own read-only engine session (never
 * the pipeline's), under the limits the caller asked for within fixed bounds; a caller that
 * disconnects has its query stopped on the engine.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { z } from 'zod';
import { currentProcess } from '../process-identity.js';
import { GATEWAY_FILE, readBody, type GatewayErrorBody as ErrorBody, type GatewayFile } from './gateway-client.js';
import {
  MAX_QUERY_ROWS,
  MAX_QUERY_TIMEOUT_MS,
  queryErrorKind,
  runQuery,
  type QueryResult,
  type Warehouse,
} from './index.js';

/** SQL longer than this is not a query a person typed. */
const MAX_BODY_BYTES = 1024 * 1024;

const QueryRequest = z.object({
  sql: z.string(),
  timeoutMs: z.number().int().min(1).max(MAX_QUERY_TIMEOUT_MS).optional(),
  maxRows: z.number().int().min(1).max(MAX_QUERY_ROWS).optional(),
});


export async function serveWarehouseGateway(warehouse: Warehouse, dataDir: string): Promise<() => Promise<void>> {
  const token = randomBytes(24).toString('hex');
  const server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST' || req.url !== '/query' || req.headers['x-mintpipe-token'] !== token) {
        res.writeHead(404).end();
        return;
      }
      const reply = (status: number, body: QueryResult | ErrorBody) => {
        if (!res.destroyed) res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      // The caller went away before its answer: stop its query on the engine.
      const abort = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) abort.abort();
      });
      let parsed;
      try {
        parsed = QueryRequest.safeParse(JSON.parse(await readBody(req, MAX_BODY_BYTES)));
      } catch {
        parsed = undefined;
      }
      if (!parsed?.success) {
        reply(400, { error: 'query: the gateway expects {"sql": "…", "timeoutMs"?: n, "maxRows"?: n}', kind: 'refused' });
        return;
      }
      const { sql, timeoutMs, maxRows } = parsed.data;
      try {
        reply(200, await runQuery(warehouse, sql, { timeoutMs, maxRows, signal: abort.signal }));
      } catch (err) {
        const kind = queryErrorKind(err);
        const message = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
        reply(kind === 'refused' || kind === 'failed' ? 400 : 500, { error: message, kind });
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const path = join(dataDir, GATEWAY_FILE);
  // Created anew with mode 0600: writing over a stale file would keep its mode, and the token with it.
  rmSync(path, { force: true });
  writeFileSync(path, JSON.stringify({ ...currentProcess(), url: `http://127.0.0.1:${port}`, token } satisfies GatewayFile), { mode: 0o600, flag: 'wx' });
  return async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    try {
      const current = JSON.parse(readFileSync(path, 'utf8')) as GatewayFile;
      if (current.pid === process.pid) rmSync(path, { force: true });
    } catch {
      /* already gone */
    }
  };
}
