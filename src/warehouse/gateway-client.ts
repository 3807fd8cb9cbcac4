/**
 * The client side of the warehouse gateway (warehouse-gateway.ts): how another mintpipe command
 * finds the process holding the embedded warehouse and asks it a read-only query. Node built-ins
 * and the query error classes only, so `mintpipe query` through a running installation loads
 * neither the engine nor the ClickHouse client nor the configuration.
 */
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { MintpipeError } from '../errors.js';
import { isLive, type ProcessIdentity } from '../process-identity.js';
import { readOwnFile } from '../private-files.js';
import { DEFAULT_QUERY_LIMITS, type QueryLimits } from './query-limits.js';
import { queryErrorOfKind, sqlTooLong, type QueryErrorKind } from './query-errors.js';
import type { ChunkSink, QueryResult, StreamOutcome } from './read-only-query.js';
import type { ResultFormat } from './result-format.js';
import { RowsCollector } from './rows-collector.js';

/** What the holder writes beside the data (mode 0600): where it listens and the token it expects. */
export interface GatewayFile extends ProcessIdentity {
  url: string;
  token: string;
}

export interface GatewayErrorBody {
  error: string;
  kind?: QueryErrorKind;
}

/** The trailer of a streamed answer: how the result ended. */
export type GatewayOutcome = StreamOutcome | GatewayErrorBody;

export const GATEWAY_FILE = 'warehouse-gateway.json';
export const OUTCOME_TRAILER = 'x-mintpipe-outcome';

/** Beyond a query's own time limit, how long the gateway may send nothing before it is given up on. */
const ANSWER_GRACE_MS = 10_000;

/** Largest error body read from a gateway (errors are one line). */
const MAX_ERROR_BYTES = 64 * 1024;

/** The pid of the live process serving this data dir's gateway; undefined when none does. */
export function gatewayPid(dataDir: string): number | undefined {
  const gateway = gatewayRecord(dataDir);
  return gateway && isLive(gateway) ? gateway.pid : undefined;
}

/**
 * The data dir's gateway record, when there is one this user wrote: another user's would send our
 * queries (and token) to their server.
 */
function gatewayRecord(dataDir: string): GatewayFile | undefined {
  try {
    const { text } = readOwnFile(join(dataDir, GATEWAY_FILE));
    return text === undefined ? undefined : (JSON.parse(text) as GatewayFile);
  } catch {
    return undefined;
  }
}

/**
 * Runs a read-only query through the process holding the warehouse and returns its rows;
 * undefined when there is none. See streamThroughGateway.
 */
export async function queryThroughGateway(
  dataDir: string,
  sql: string,
  limits: Partial<QueryLimits> = {},
  tentative = false,
): Promise<QueryResult | undefined> {
  const collector = new RowsCollector();
  const outcome = await streamThroughGateway(dataDir, sql, { limits, format: 'rows' }, (chunk) => collector.add(chunk), tentative);
  return outcome && collector.result(outcome.cut ? outcome.rows : undefined);
}

/**
 * Runs a read-only query through the process holding the warehouse, handing its result to `write`
 * chunk by chunk as it arrives (the next is read once `write` is done); undefined when no process
 * serves one. Plain node:http. The gateway enforces the query's own timeout; a gateway that sends
 * nothing for that long and a grace (its process stopped, say) is given up on, never waited for.
 */
export async function streamThroughGateway(
  dataDir: string,
  sql: string,
  request: { limits?: Partial<QueryLimits>; format: ResultFormat; graceMs?: number },
  write: ChunkSink,
  /**
   * Asked before anything says a process holds the warehouse (`query` tries the gateway first): an
   * answer that is not a gateway's (a stale file whose pid and port now belong to something else)
   * means "no gateway" instead of an error. @default false
   */
  tentative = false,
): Promise<StreamOutcome | undefined> {
  const gateway = liveGateway(dataDir, tentative);
  if (!gateway) return undefined;
  // Loaded only when a gateway is named: node:http took ~7 ms to load, which a one-shot query with
  // nothing running does not need.
  const { request: httpRequest } = await import('node:http');
  const { limits = {}, format } = request;
  const payload = JSON.stringify({ sql, timeoutMs: limits.timeoutMs, maxRows: limits.maxRows, format });
  // The gateway would refuse the body unread; SQL that long is past what the engine parses anyway.
  if (Buffer.byteLength(payload, 'utf8') > GATEWAY_MAX_BODY_BYTES) throw sqlTooLong(Buffer.byteLength(sql, 'utf8'));
  const req = httpRequest(`${gateway.url}/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-mintpipe-token': gateway.token },
  });
  // A process that holds the warehouse but does not run (stopped, frozen) still accepts the
  // connection: silence past the query's own limit and a grace is an answer that will not come.
  const silentMs = (limits.timeoutMs ?? DEFAULT_QUERY_LIMITS.timeoutMs) + (request.graceMs ?? ANSWER_GRACE_MS);
  const silence = new MintpipeError(`query: the warehouse gateway (pid ${gateway.pid}) sent nothing for ${silentMs / 1000}s: is the process holding the warehouse stopped?`);
  let timer: NodeJS.Timeout | undefined;
  let silent = false;
  const listen = () =>
    (timer = setTimeout(() => {
      silent = true;
      req.destroy(silence);
    }, silentMs));
  let res: IncomingMessage;
  try {
    listen();
    res = await new Promise<IncomingMessage>((resolve, reject) => {
      req.on('error', reject);
      req.on('response', resolve);
      req.end(payload);
    });
  } catch {
    if (silent) throw silence;
    return undefined;
  } finally {
    clearTimeout(timer);
  }
  try {
    if (res.statusCode !== 200) return await refusal(res, tentative);
    if (res.headers['x-mintpipe-format'] !== format) {
      if (tentative) return undefined;
      throw queryErrorOfKind('failed', `query: the warehouse gateway answered HTTP 200 without a ${format} result`);
    }
    const chunks = res[Symbol.asyncIterator]();
    for (;;) {
      let next: IteratorResult<Buffer>;
      try {
        // Only while waiting for the gateway: a reader of ours that is slow (a pager) is not silence.
        listen();
        next = (await chunks.next()) as IteratorResult<Buffer>;
      } catch {
        throw silent ? silence : endedEarly();
      } finally {
        clearTimeout(timer);
      }
      if (next.done) break;
      await write(next.value);
    }
    return outcomeOf(res);
  } finally {
    // Also when `write` failed: the gateway then stops the query on the engine.
    req.destroy();
  }
}

function liveGateway(dataDir: string, tentative: boolean): GatewayFile | undefined {
  const gateway = gatewayRecord(dataDir);
  // A first try from a process that names itself (its pid reused by a container restarted on the
  // same volume) finds no gateway: it serves none.
  if (!gateway || (tentative && gateway.pid === process.pid)) return undefined;
  return isLive(gateway) ? gateway : undefined;
}

/** An error answer as the verdict it carries (undefined: not a gateway's, when tentative). */
async function refusal(res: IncomingMessage, tentative: boolean): Promise<undefined> {
  let body: Partial<GatewayErrorBody> | undefined;
  try {
    body = JSON.parse(await readBody(res, MAX_ERROR_BYTES)) as Partial<GatewayErrorBody>;
  } catch {
    body = undefined;
  }
  const error = typeof body === 'object' && body !== null && typeof body.error === 'string' ? body.error : undefined;
  if (tentative && error === undefined) return undefined;
  throw queryErrorOfKind(body?.kind, error ?? `query: the warehouse gateway answered HTTP ${res.statusCode} without a result`);
}

/** The trailer's outcome; a stream that ended without one was broken off (the serving process stopped). */
function outcomeOf(res: IncomingMessage): StreamOutcome {
  const trailer = res.trailers[OUTCOME_TRAILER];
  let outcome: Partial<StreamOutcome & GatewayErrorBody> | undefined;
  try {
    outcome = trailer === undefined ? undefined : (JSON.parse(decodeURIComponent(trailer)) as Partial<StreamOutcome & GatewayErrorBody>);
  } catch {
    outcome = undefined;
  }
  if (typeof outcome?.error === 'string') throw queryErrorOfKind(outcome.kind, outcome.error);
  if (typeof outcome?.rows !== 'number' || typeof outcome.cut !== 'boolean') throw endedEarly();
  return { rows: outcome.rows, cut: outcome.cut };
}

function endedEarly(): MintpipeError {
  return new MintpipeError('query: the result ended early: the warehouse gateway stopped answering (the process holding the warehouse may have stopped)');
}

/** The largest request the gateway reads. */
export const GATEWAY_MAX_BODY_BYTES = 1024 * 1024;

export async function readBody(req: IncomingMessage, maxBytes = Infinity): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
