/**
 * The client side of the warehouse gateway (warehouse-gateway.ts): how another mintpipe command
 * finds the process holding the embedded warehouse and asks it a read-only query. Node built-ins
 * and the query error classes only, so `mintpipe query` through a running installation loads
 * neither the engine nor the ClickHouse client nor the configuration.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { isLive, type ProcessIdentity } from '../process-identity.js';
import type { QueryLimits } from './query-limits.js';
import { queryErrorOfKind, type QueryErrorKind } from './query-errors.js';
import type { QueryResult } from './read-only-query.js';

/** What the holder writes beside the data (mode 0600): where it listens and the token it expects. */
export interface GatewayFile extends ProcessIdentity {
  url: string;
  token: string;
}

export interface GatewayErrorBody {
  error: string;
  kind?: QueryErrorKind;
}

export const GATEWAY_FILE = 'warehouse-gateway.json';

/** The pid of the live process serving this data dir's gateway; undefined when none does. */
export function gatewayPid(dataDir: string): number | undefined {
  try {
    const gateway = JSON.parse(readFileSync(join(dataDir, GATEWAY_FILE), 'utf8')) as GatewayFile;
    return isLive(gateway) ? gateway.pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs a read-only query through the process holding the warehouse; undefined when there is none.
 * Plain node:http, without a response deadline: the gateway enforces the query's own timeout.
 */
export async function queryThroughGateway(
  dataDir: string,
  sql: string,
  limits: Partial<QueryLimits> = {},
  /**
   * Asked before anything says a process holds the warehouse (`query` tries the gateway first): an
   * answer that is not a gateway's (a stale file whose pid and port now belong to something else)
   * means "no gateway" instead of an error. @default false
   */
  tentative = false,
): Promise<QueryResult | undefined> {
  const path = join(dataDir, GATEWAY_FILE);
  if (!existsSync(path)) return undefined;
  let gateway: GatewayFile;
  try {
    gateway = JSON.parse(readFileSync(path, 'utf8')) as GatewayFile;
    // A first try from a process that names itself (its pid reused by a container restarted on the
    // same volume) finds no gateway: it serves none.
    if (tentative && gateway.pid === process.pid) return undefined;
    if (!isLive(gateway)) return undefined;
  } catch {
    return undefined;
  }
  // Loaded only when a gateway is named: node:http took ~7 ms to load, which a one-shot query with
  // nothing running does not need.
  const { request } = await import('node:http');
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
  let body: QueryResult & Partial<GatewayErrorBody>;
  try {
    body = JSON.parse(answer.body) as QueryResult & Partial<GatewayErrorBody>;
  } catch {
    if (tentative) return undefined;
    throw queryErrorOfKind('failed', `query: the warehouse gateway answered HTTP ${answer.status} without a result`);
  }
  if (tentative && (typeof body !== 'object' || body === null || (answer.status === 200 ? !Array.isArray(body.rows) : typeof body.error !== 'string'))) return undefined;
  if (answer.status !== 200) throw queryErrorOfKind(body.kind, body.error ?? `query: HTTP ${answer.status}`);
  return body;
}

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
