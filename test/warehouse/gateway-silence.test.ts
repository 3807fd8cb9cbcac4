/**
 * A gateway whose process holds the warehouse but does not run (stopped with SIGSTOP, frozen)
 * still accepts connections: a reader gives up on it once it has sent nothing for the query's own
 * time limit and a grace, in one line, instead of waiting for an answer that will not come.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { currentProcess } from '../../src/process-identity.js';
import { GATEWAY_FILE, streamThroughGateway, type GatewayFile } from '../../src/warehouse/gateway-client.js';
import { fileTempDir } from '../support/test-env.js';
import { rejection } from '../support/wait.js';

const held: ServerResponse[] = [];
let server: Server | undefined;

afterEach(async () => {
  for (const res of held.splice(0)) res.destroy();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A data dir whose gateway file names this (live) process and a server that answers with `answer`. */
async function gatewayThatAnswers(answer: (res: ServerResponse) => void): Promise<string> {
  server = createServer((_req, res) => {
    held.push(res);
    answer(res);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const dataDir = fileTempDir('gateway-silence');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  writeFileSync(join(dataDir, GATEWAY_FILE), JSON.stringify({ ...currentProcess(), url, token: 'a'.repeat(64) } satisfies GatewayFile), { mode: 0o600 });
  return dataDir;
}

const ask = (dataDir: string, chunks: Buffer[] = []) =>
  streamThroughGateway(dataDir, 'SELECT 1', { limits: { timeoutMs: 200 }, format: 'rows', graceMs: 100 }, (chunk) => void chunks.push(Buffer.from(chunk)));

describe('a gateway that sends nothing', () => {
  it('is given up on before its answer begins, after the query limit and the grace, in one line', async () => {
    const dataDir = await gatewayThatAnswers(() => undefined);
    const startedAt = performance.now();
    const error = await rejection(ask(dataDir));
    expect((error as Error).message).toBe(`query: the warehouse gateway (pid ${process.pid}) sent nothing for 0.3s: is the process holding the warehouse stopped?`);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(290);
  });

  it('is given up on when it stops in the middle of a result, not taken for one that ended early', async () => {
    const dataDir = await gatewayThatAnswers((res) => {
      res.writeHead(200, { 'x-mintpipe-format': 'rows', trailer: 'x-mintpipe-outcome' });
      res.write('{"columns":[]');
    });
    const chunks: Buffer[] = [];
    const error = await rejection(ask(dataDir, chunks));
    expect((error as Error).message).toMatch(/sent nothing for 0\.3s: is the process holding the warehouse stopped\?$/);
    expect(Buffer.concat(chunks).toString()).toBe('{"columns":[]');
  });

  it('is not given up on while it keeps sending: a long answer is not silence', async () => {
    const dataDir = await gatewayThatAnswers((res) => {
      res.writeHead(200, { 'x-mintpipe-format': 'rows', trailer: 'x-mintpipe-outcome' });
      let sent = 0;
      const tick = setInterval(() => {
        res.write(`chunk ${sent} `);
        if (++sent < 6) return;
        clearInterval(tick);
        res.addTrailers({ 'x-mintpipe-outcome': encodeURIComponent(JSON.stringify({ rows: 6, cut: false })) });
        res.end();
      }, 150);
    });
    const chunks: Buffer[] = [];
    await expect(ask(dataDir, chunks)).resolves.toEqual({ rows: 6, cut: false });
    expect(Buffer.concat(chunks).toString()).toBe('chunk 0 chunk 1 chunk 2 chunk 3 chunk 4 chunk 5 ');
  });
});
