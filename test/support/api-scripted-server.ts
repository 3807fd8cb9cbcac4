/**
 * A tiny HTTP server for the API client tests that answers each request with the next scripted
 * step — an exact status/headers/body, a reset before or after reading the request, a hang — and
 * records what it received (raw path, headers, body, time). Not a Mintlify emulator: it exists to
 * produce exact faults.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Step =
  | { status: number; headers?: Record<string, string>; body?: unknown; delayMs?: number }
  | { reset: 'before-body' | 'after-body' }
  /** Headers and the start of the body, then the socket dies (`reset`) or nothing more comes (`stall`). */
  | { partial: 'reset' | 'stall' }
  /** Reads the request and never answers. */
  | { hang: true };

export interface ReceivedRequest {
  method: string;
  /** Raw request target, exactly as the client sent it (not decoded). */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  atMs: number;
}

export interface ScriptedServer {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Steps are consumed in order; when none is left, `fallback` answers. */
  script(...steps: Step[]): void;
  /** Steps scripted but not used yet. */
  pending(): number;
  /** Forgets unused steps and recorded requests (between tests). */
  reset(): void;
  fallback: Step;
  close(): Promise<void>;
}

function send(res: ServerResponse, step: { status: number; headers?: Record<string, string>; body?: unknown }): void {
  const body = step.body === undefined ? '' : typeof step.body === 'string' ? step.body : JSON.stringify(step.body);
  res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
  res.end(body);
}

export async function startScriptedServer(options: { port?: number; fallback?: Step } = {}): Promise<ScriptedServer> {
  const queue: Step[] = [];
  const sockets = new Set<Socket>();
  const requests: ReceivedRequest[] = [];
  const state: ScriptedServer = {
    url: '',
    port: 0,
    requests,
    script: (...steps) => void queue.push(...steps),
    pending: () => queue.length,
    reset: () => {
      queue.length = 0;
      requests.length = 0;
    },
    fallback: options.fallback ?? { status: 200, body: {} },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res) => {
    const step = queue.shift() ?? state.fallback;
    const received: ReceivedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: '', atMs: Date.now() };
    requests.push(received);
    if ('reset' in step && step.reset === 'before-body') {
      req.socket.destroy();
      return;
    }
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (received.body += chunk));
    req.on('end', () => {
      if ('reset' in step) {
        req.socket.destroy();
      } else if ('hang' in step) {
        // never answer
      } else if ('partial' in step) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"totals":');
        if (step.partial === 'reset') setTimeout(() => req.socket.destroy(), 20);
      } else if (step.delayMs) {
        setTimeout(() => send(res, step), step.delayMs);
      } else {
        send(res, step);
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  state.port = (server.address() as AddressInfo).port;
  state.url = `http://127.0.0.1:${state.port}`;
  return state;
}

export const OK_PAGE = {
  totals: { human: 10, ai: 4, total: 12 },
  visitors: [
    { path: '/intro', human: 6, ai: 2, total: 7 },
    { path: '/api', human: 4, ai: 2, total: 5 },
  ],
  hasMore: false,
};

export const OK_JOB = { id: 'job-1', status: 'active', prLink: null, source: { repository: 'o/r', ref: 'main' }, model: 'm', createdAt: '2026-01-01T00:00:00Z', archivedAt: null };

export const QUERY = { dateFrom: '2026-01-01', dateTo: '2026-01-02', limit: 250, offset: 0 };

/** Shaped like a real admin key so redaction (which matches `mint_…`) is exercised for real. */
export const API_KEY = 'mint_TestSecretKey0123456789abcdef';
