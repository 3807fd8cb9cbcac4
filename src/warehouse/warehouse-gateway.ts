/**
 * The embedded warehouse can be open in one process only. The process that holds it (start,
 * worker, dashboard) serves read-only queries to the other mintpipe commands of the same data dir
 * over loopback HTTP, with a random token in a 0600 file beside the data: so `mintpipe query`
 * works while `mintpipe start` runs. Each query runs in its own read-only engine session (never
 * the pipeline's), under the limits the caller asked for within fixed bounds; a caller that
 * disconnects has its query stopped on the engine.
 *
 * A result streams as the engine writes it (rows, JSON lines or CSV), at the pace the caller reads
 * it; how it ended (complete, cut at the row cap, or stopped by a limit after some rows) comes in
 * a trailer, `x-mintpipe-outcome`. At most `concurrency` queries run at once; more are refused
 * with 429.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { z } from 'zod';
import { currentProcess } from '../process-identity.js';
import { GATEWAY_FILE, GATEWAY_MAX_BODY_BYTES, OUTCOME_TRAILER, readBody, type GatewayErrorBody as ErrorBody, type GatewayFile, type GatewayOutcome } from './gateway-client.js';
import { MAX_QUERY_ROWS, MAX_QUERY_TIMEOUT_MS } from './query-limits.js';
import { queryErrorKind } from './query-errors.js';
import { streamQuery } from './read-only-query.js';
import { CONTENT_TYPES, RESULT_FORMATS, type ResultFormat } from './result-format.js';
import type { Warehouse } from './warehouse.js';

/** SQL longer than this is not a query a person typed. */

export interface GatewayOptions {
  /** Queries run at once; more are refused with 429 (`MINTPIPE_GATEWAY_CONCURRENCY`). @default 2 */
  concurrency?: number;
}

export const DEFAULT_GATEWAY_CONCURRENCY = 2;

const QueryRequest = z.object({
  sql: z.string(),
  timeoutMs: z.number().int().min(1).max(MAX_QUERY_TIMEOUT_MS).optional(),
  /** null: no cap (the machine formats); absent: the default cap. */
  maxRows: z.number().int().min(1).max(MAX_QUERY_ROWS).nullable().optional(),
  format: z.enum(RESULT_FORMATS as [ResultFormat, ...ResultFormat[]]).default('rows'),
});
type QueryRequest = z.infer<typeof QueryRequest>;

const USAGE = 'query: the gateway expects {"sql": "…", "timeoutMs"?: n, "maxRows"?: n|null, "format"?: "rows"|"json-lines"|"csv"}';

export async function serveWarehouseGateway(warehouse: Warehouse, dataDir: string, options: GatewayOptions = {}): Promise<() => Promise<void>> {
  const token = randomBytes(24).toString('hex');
  const concurrency = options.concurrency ?? DEFAULT_GATEWAY_CONCURRENCY;
  let running = 0;
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/query' || req.headers['x-mintpipe-token'] !== token) {
      res.writeHead(404).end();
      return;
    }
    if (running >= concurrency) {
      const error = `query: the warehouse gateway is busy: it runs at most ${concurrency} ${concurrency === 1 ? 'query' : 'queries'} at once (MINTPIPE_GATEWAY_CONCURRENCY); try again when one has finished`;
      replyError(res, 429, { error, kind: 'busy' });
      return;
    }
    running += 1;
    void (async () => {
      let request: QueryRequest | undefined;
      try {
        request = QueryRequest.parse(JSON.parse(await readBody(req, GATEWAY_MAX_BODY_BYTES)));
      } catch {
        replyError(res, 400, { error: USAGE, kind: 'refused' });
        return;
      }
      await answer(warehouse, request, res);
    })().finally(() => {
      running -= 1;
    });
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

function replyError(res: ServerResponse, status: number, body: ErrorBody): void {
  if (!res.destroyed) res.writeHead(status, { 'content-type': 'application/json' }).end(`${JSON.stringify(body)}\n`);
}

/**
 * Streams one query's result to `res`: the head goes out with the first chunk, so a query that
 * fails before any row answers with a plain error status; after that, the outcome is the trailer.
 */
async function answer(warehouse: Warehouse, request: QueryRequest, res: ServerResponse): Promise<void> {
  // The caller went away before its answer: stop its query on the engine.
  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  const head = () => {
    if (res.headersSent) return;
    res.writeHead(200, { 'content-type': CONTENT_TYPES[request.format], 'x-mintpipe-format': request.format, trailer: OUTCOME_TRAILER });
  };
  const write = async (chunk: Uint8Array) => {
    if (res.destroyed) return;
    head();
    // Wait for the caller to take it before fetching more: a slow reader holds the engine back.
    if (!res.write(chunk)) await drained(res);
  };
  let outcome: GatewayOutcome;
  try {
    const { sql, timeoutMs, maxRows, format } = request;
    outcome = await streamQuery(warehouse, sql, { timeoutMs, maxRows, format, signal: abort.signal }, write);
  } catch (err) {
    const kind = queryErrorKind(err);
    const error = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
    if (!res.headersSent) {
      replyError(res, kind === 'refused' || kind === 'failed' ? 400 : 500, { error, kind });
      return;
    }
    outcome = { error, kind };
  }
  if (res.destroyed) return;
  head();
  // Percent-encoded: a trailer holds header characters only, and an engine message may hold any.
  res.addTrailers({ [OUTCOME_TRAILER]: encodeURIComponent(JSON.stringify(outcome)) });
  res.end();
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
