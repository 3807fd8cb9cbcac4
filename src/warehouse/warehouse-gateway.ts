/**
 * The embedded warehouse can be open in one process only. The process that holds it (start,
 * worker, dashboard) serves read-only queries to the other mintpipe commands of the same data dir
 * over loopback HTTP, with a random token in a 0600 file beside the data: so `mintpipe query`
 * works while `mintpipe start` runs. Each query runs in its own read-only engine session (never
 * the pipeline's), under the limits the caller asked for within fixed bounds; a caller that
 * disconnects has its query stopped on the engine.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { z } from 'zod';
import {
  MAX_QUERY_ROWS,
  MAX_QUERY_TIMEOUT_MS,
  queryErrorKind,
  queryErrorOfKind,
  runQuery,
  type QueryErrorKind,
  type QueryLimits,
  type QueryResult,
  type Warehouse,
} from './index.js';

interface GatewayFile {
  pid: number;
  url: string;
  token: string;
}

const fileName = 'warehouse-gateway.json';
/** SQL longer than this is not a query a person typed. */
const MAX_BODY_BYTES = 1024 * 1024;

const QueryRequest = z.object({
  sql: z.string(),
  timeoutMs: z.number().int().min(1).max(MAX_QUERY_TIMEOUT_MS).optional(),
  maxRows: z.number().int().min(1).max(MAX_QUERY_ROWS).optional(),
});

interface ErrorBody {
  error: string;
  kind?: QueryErrorKind;
}

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
  const path = join(dataDir, fileName);
  writeFileSync(path, JSON.stringify({ pid: process.pid, url: `http://127.0.0.1:${port}`, token } satisfies GatewayFile), { mode: 0o600 });
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

/** The pid of the live process serving this data dir's gateway; undefined when none does. */
export function gatewayPid(dataDir: string): number | undefined {
  try {
    const { pid } = JSON.parse(readFileSync(join(dataDir, fileName), 'utf8')) as GatewayFile;
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

/**
 * Runs a read-only query through the process holding the warehouse; undefined when there is none.
 * Plain node:http, without a response deadline: the gateway enforces the query's own timeout.
 */
export async function queryThroughGateway(dataDir: string, sql: string, limits: Partial<QueryLimits> = {}): Promise<QueryResult | undefined> {
  const path = join(dataDir, fileName);
  if (!existsSync(path)) return undefined;
  let gateway: GatewayFile;
  try {
    gateway = JSON.parse(readFileSync(path, 'utf8')) as GatewayFile;
    process.kill(gateway.pid, 0);
  } catch {
    return undefined;
  }
  const payload = JSON.stringify({ sql, timeoutMs: limits.timeoutMs, maxRows: limits.maxRows });
  let answer: { status: number; body: string };
  try {
    answer = await new Promise((resolve, reject) => {
      const req = request(`${gateway.url}/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-mintpipe-token': gateway.token },
      });
      req.on('error', reject);
      req.on('response', (res) => {
        readBody(res).then((body) => resolve({ status: res.statusCode ?? 0, body }), reject);
      });
      req.end(payload);
    });
  } catch {
    return undefined;
  }
  let body: QueryResult & Partial<ErrorBody>;
  try {
    body = JSON.parse(answer.body) as QueryResult & Partial<ErrorBody>;
  } catch {
    throw queryErrorOfKind('failed', `query: the warehouse gateway answered HTTP ${answer.status} without a result`);
  }
  if (answer.status !== 200) throw queryErrorOfKind(body.kind, body.error ?? `query: HTTP ${answer.status}`);
  return body;
}

async function readBody(req: IncomingMessage, maxBytes = Infinity): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
