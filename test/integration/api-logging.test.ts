import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MintlifyClient } from '../../src/api/index.js';
import { createLogger } from '../../src/logger.js';
import { freePort } from '../support/ports.js';
import { API_KEY, OK_JOB, OK_PAGE, QUERY, startScriptedServer, type ScriptedServer, type Step } from '../support/api-scripted-server.js';
import { rejection } from '../support/wait.js';

let server: ScriptedServer;
let lines: string[];
let client: MintlifyClient;

function capturedLogger() {
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      callback();
    },
  });
  return createLogger({ level: 'debug', pretty: false, destination });
}

function clientFor(baseUrl: string): MintlifyClient {
  return new MintlifyClient({ baseUrl, apiKey: API_KEY, timeoutMs: 200, retry: { attempts: 2, baseDelayMs: 10 }, logger: capturedLogger() });
}

beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());
beforeEach(() => {
  lines = [];
  server.reset();
  server.fallback = { status: 200, body: OK_PAGE };
  client = clientFor(server.url);
});

describe('logs are events', () => {
  it('logs a debug line per attempt and a warn line per retry, with stable keys', async () => {
    server.script({ status: 503, body: { error: 'busy' } });
    await client.getVisitors('proj-1', QUERY);
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const attempts = records.filter((r) => r.event === 'api.attempt');
    expect(attempts.map((r) => [r.level, r.op, r.project, r.attempt, r.status, r.outcome])).toEqual([
      [20, 'getVisitors', 'proj-1', 1, 503, 'retry'],
      [20, 'getVisitors', 'proj-1', 2, 200, 'ok'],
    ]);
    expect(attempts.every((r) => typeof r.ms === 'number')).toBe(true);
    const retries = records.filter((r) => r.event === 'api.retry');
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ level: 40, op: 'getVisitors', project: 'proj-1', attempt: 1, status: 503, reason: 'server_error' });
    expect(typeof retries[0]!.delayMs).toBe('number');
  });
});

describe('the API key never leaks', () => {
  const echoes: Array<[string, Step]> = [
    ['401 echoing the key', { status: 401, body: { error: `key ${API_KEY} is invalid` } }],
    ['400 details echoing the key', { status: 400, body: { error: `bad ${API_KEY}`, details: [{ message: `header Bearer ${API_KEY}` }] } }],
    ['500 page echoing the key', { status: 500, body: `<pre>Authorization: Bearer ${API_KEY}</pre>` }],
    ['429 echoing the key', { status: 429, headers: { 'retry-after': '0' }, body: { error: API_KEY } }],
    ['non-JSON 200 echoing the key', { status: 200, body: `token=${API_KEY}` }],
    ['invalid field echoing the key', { status: 200, body: { ...OK_JOB, status: API_KEY } }],
    ['reset', { reset: 'after-body' }],
    ['timeout', { hang: true }],
  ];

  it('in any error (message, JSON, inspect with causes) or log line, for every kind of failure', async () => {
    const errors: unknown[] = [];
    for (const [, step] of echoes) {
      server.reset();
      server.script(step, step);
      errors.push(await rejection(client.getVisitors('p', QUERY)));
      server.reset();
      server.script(step, step);
      errors.push(await rejection(client.sendMessage('p', 'j', 'hi')));
    }
    errors.push(await rejection(clientFor(`http://127.0.0.1:${await freePort()}`).sendMessage('p', 'j', 'hi')));
    expect(errors).toHaveLength(echoes.length * 2 + 1);
    for (const error of errors) {
      const renderings = [String(error), JSON.stringify(error), inspect(error, { depth: 10, showHidden: true })];
      for (const text of renderings) {
        expect(text).not.toContain(API_KEY);
        expect(text).not.toMatch(/Bearer mint_(?!\[REDACTED\])/);
      }
    }
    // The echoed key shows up redacted, proving the redaction (not the server) kept it out.
    expect(errors.map(String).join('\n')).toContain('mint_[REDACTED]');
    const output = lines.join('\n');
    expect(lines.length).toBeGreaterThan(20);
    expect(output).not.toContain(API_KEY);
    expect(output).not.toMatch(/Bearer mint_(?!\[REDACTED\])/);
    expect(output).toMatch(/"reason":"timeout"/);
    expect(output).toMatch(/"code":"UND_ERR_SOCKET"|UND_ERR_SOCKET/);
    expect(output).not.toContain('TestSecretKey');
  });

  it('not even when the error is logged the usual way', async () => {
    server.script({ status: 401, body: { error: `nope ${API_KEY}` } });
    const error = await rejection(client.getVisitors('p', QUERY));
    capturedLogger().error({ err: error }, 'export failed');
    expect(lines.join('\n')).not.toContain(API_KEY);
  });
});
