/**
 * The embedded warehouse can be open in one process only. The process that holds it (start,
 * worker, dashboard) serves read-only queries to the other mintpipe commands of the same data dir
 * over loopback HTTP, with a random token in a 0600 file beside the data: so `mintpipe query`
 * works while `mintpipe start` runs.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { MintpipeError } from '../errors.js';
import { assertReadOnly, runQuery, type QueryResult, type Warehouse } from '../warehouse/index.js';

interface GatewayFile {
  pid: number;
  url: string;
  token: string;
}

const fileName = 'warehouse-gateway.json';

export async function serveWarehouseGateway(warehouse: Warehouse, dataDir: string): Promise<() => Promise<void>> {
  const token = randomBytes(24).toString('hex');
  const server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST' || req.url !== '/query' || req.headers['x-mintpipe-token'] !== token) {
        res.writeHead(404).end();
        return;
      }
      try {
        const { sql } = JSON.parse(await readBody(req)) as { sql: string };
        assertReadOnly(sql);
        const result = await runQuery(warehouse, sql);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: message.split('\n')[0] }));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const path = join(dataDir, fileName);
  writeFileSync(path, JSON.stringify({ pid: process.pid, url: `http://127.0.0.1:${port}`, token } satisfies GatewayFile), { mode: 0o600 });
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    try {
      const current = JSON.parse(readFileSync(path, 'utf8')) as GatewayFile;
      if (current.pid === process.pid) rmSync(path, { force: true });
    } catch {
      /* already gone */
    }
  };
}

/** Runs a read-only query through the process holding the warehouse; undefined when there is none. */
export async function queryThroughGateway(dataDir: string, sql: string): Promise<QueryResult | undefined> {
  const path = join(dataDir, fileName);
  if (!existsSync(path)) return undefined;
  let gateway: GatewayFile;
  try {
    gateway = JSON.parse(readFileSync(path, 'utf8')) as GatewayFile;
    process.kill(gateway.pid, 0);
  } catch {
    return undefined;
  }
  let response: Response;
  try {
    response = await fetch(`${gateway.url}/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-mintpipe-token': gateway.token },
      body: JSON.stringify({ sql }),
    });
  } catch {
    return undefined;
  }
  const body = (await response.json()) as QueryResult & { error?: string };
  if (!response.ok) throw new QueryFailedError(`query: ${body.error ?? `HTTP ${response.status}`}`);
  return body;
}

/** The SQL was accepted as read-only but the engine refused it (syntax, unknown column…). */
export class QueryFailedError extends MintpipeError {
  override name = 'QueryFailedError';
  override exitCode = 2;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
