import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MintlifyClient } from '../../src/api/index.js';
import { createLogger, registerSecret } from '../../src/logger.js';
import { freePort } from '../support/ports.js';
import { API_KEY, OK_JOB, OK_PAGE, QUERY, startScriptedServer, type ScriptedServer, type Step } from '../support/api-scripted-server.js';
import { keySpellings, revealsKey } from '../support/key-spellings.js';
import { rejection } from '../support/wait.js';
import { getVisitorsPage } from '../support/visitors-page.js';

// As loading the configuration does (src/cli/command-context.ts): the configured key is a secret of this process.
registerSecret(API_KEY);

let server: ScriptedServer;
let lines: string[];
let client: MintlifyClient;

function capturedLogger(level = 'debug') {
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      callback();
    },
  });
  return createLogger({ level, pretty: false, destination });
}

function clientFor(baseUrl: string): MintlifyClient {
  return new MintlifyClient({ baseUrl, apiKey: API_KEY, timeoutMs: 1_500, retry: { attempts: 2, baseDelayMs: 10 }, logger: capturedLogger() });
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
    await getVisitorsPage(client, 'proj-1', QUERY);
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const attempts = records.filter((r) => r.event === 'api.attempt');
    expect(attempts.map((r) => [r.level, r.op, r.project, r.attempt, r.status, r.outcome])).toEqual([
      [20, 'getAnalytics', 'proj-1', 1, 503, 'retry'],
      [20, 'getAnalytics', 'proj-1', 2, 200, 'ok'],
    ]);
    expect(attempts.every((r) => typeof r.ms === 'number')).toBe(true);
    const retries = records.filter((r) => r.event === 'api.retry');
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ level: 40, op: 'getAnalytics', project: 'proj-1', attempt: 1, status: 503, reason: 'server_error' });
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
      errors.push(await rejection(getVisitorsPage(client, 'p', QUERY)));
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
    expect(errors.map(String).join('\n')).toContain('[REDACTED]');
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
    const error = await rejection(getVisitorsPage(client, 'p', QUERY));
    capturedLogger().error({ err: error }, 'export failed');
    expect(lines.join('\n')).not.toContain(API_KEY);
  });
});

/** Every string inside a parsed log line (values of any depth). */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

describe('a failing request logged at every level (M5)', () => {
  const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
  const spellings = keySpellings(API_KEY);
  const echoed = { error: `key refused: ${Object.values(spellings).join(' / ')}`, details: Object.entries(spellings).map(([how, key]) => ({ message: `${how}: ${key}` })) };

  it('shows the key in none of its spellings on any line, however the failure is logged', async () => {
    // The upstream echoes the key back in its error body, in many spellings.
    server.script({ status: 401, body: echoed });
    const logger = capturedLogger('trace');
    const traced = new MintlifyClient({ baseUrl: server.url, apiKey: API_KEY, timeoutMs: 500, retry: { attempts: 1 }, logger });
    const error = await rejection(getVisitorsPage(traced, 'p', QUERY));
    // The same body as a careless caller would see it: raw, never redacted by the API client.
    server.script({ status: 401, body: echoed });
    const raw = await (await fetch(`${server.url}/raw`, { headers: { authorization: `Bearer ${API_KEY}` } })).text();
    expect(revealsKey(raw, API_KEY)).toBe(true);

    const child = logger.child({ upstream: raw, request: { headers: { authorization: `Bearer ${API_KEY}` } } });
    for (const level of LEVELS) {
      logger[level]({ err: error, event: 'export_failed' }, 'window export failed');
      logger[level]({ err: new Error(`upstream: ${raw}`, { cause: new Error(raw) }) }, raw);
      logger[level]({ body: raw, nested: { deep: [raw, { again: raw }] } }, 'upstream said %s (%o)', raw, { raw });
      child[level]('a line with the body in its bindings');
      logger[level](new Error(raw));
    }

    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(new Set(records.map((r) => r.level))).toEqual(new Set([10, 20, 30, 40, 50, 60]));
    expect(records.filter((r) => r.level === 60)).toHaveLength(5);
    for (const line of lines) {
      expect(revealsKey(line, API_KEY)).toBe(false);
      for (const text of stringsIn(JSON.parse(line))) expect(revealsKey(text, API_KEY)).toBe(false);
    }
    // The body is still there, minus the key: the lines stay useful.
    expect(lines.join('\n')).toContain('key refused: [REDACTED]');
  });
});
