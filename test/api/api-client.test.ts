import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AuthError,
  InvalidRequestError,
  MintlifyApiError,
  MintlifyClient,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  InvalidResponseError,
  TERMINAL_STATUSES,
  isTerminalStatus,
} from '../../src/api/index.js';
import { freePort } from '../support/ports.js';
import { API_KEY, OK_JOB, OK_PAGE, QUERY, startScriptedServer, type ScriptedServer } from '../support/api-scripted-server.js';
import { advance, realUntil, withFakeTimeouts } from '../support/fake-timeouts.js';
import { rejection } from '../support/wait.js';
import { getVisitorsPage } from '../support/visitors-page.js';

let server: ScriptedServer;
let client: MintlifyClient;

beforeAll(async () => {
  server = await startScriptedServer();
  client = new MintlifyClient({ baseUrl: server.url, apiKey: API_KEY, timeoutMs: 500, retry: { attempts: 1 } });
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  server.fallback = { status: 200, body: OK_PAGE };
});

/** The rejection of `promise`, failing the test if it resolves. */
describe('requests', () => {
  it('gets a visitors page with the bearer key and the query in the URL', async () => {
    const page = await getVisitorsPage(client, 'proj', QUERY);
    expect(page).toEqual(OK_PAGE);
    const [req] = server.requests;
    expect(req?.method).toBe('GET');
    expect(req?.url).toBe('/v1/analytics/proj/visitors?dateFrom=2026-01-01&dateTo=2026-01-02&limit=250&offset=0');
    expect(req?.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it('keeps a path prefix of the base URL', async () => {
    const prefixed = new MintlifyClient({ baseUrl: `${server.url}/proxy/mintlify`, apiKey: API_KEY });
    await getVisitorsPage(prefixed, 'proj', QUERY);
    expect(server.requests[0]?.url).toMatch(/^\/proxy\/mintlify\/v1\/analytics\/proj\/visitors\?/);
  });

  it('encodes path parameters so an id cannot change the path', async () => {
    await getVisitorsPage(client, 'a/../b', QUERY);
    await getVisitorsPage(client, 'x?y#z', { ...QUERY, dateFrom: '2026-01-01T00:00:00+01:00' });
    server.fallback = { status: 200, body: OK_JOB };
    await client.getAgentJob('p/../../admin', 'j?x=1#f');
    await client.sendMessage('p q', '../j', 'hi');
    expect(server.requests.map((r) => r.url)).toEqual([
      '/v1/analytics/a%2F..%2Fb/visitors?dateFrom=2026-01-01&dateTo=2026-01-02&limit=250&offset=0',
      '/v1/analytics/x%3Fy%23z/visitors?dateFrom=2026-01-01T00%3A00%3A00%2B01%3A00&dateTo=2026-01-02&limit=250&offset=0',
      '/v2/agent/p%2F..%2F..%2Fadmin/job/j%3Fx%3D1%23f',
      '/v2/agent/p%20q/job/..%2Fj/message',
    ]);
  });

  it('refuses ids that cannot be a path segment without spending a request', async () => {
    for (const id of ['..', '.', '']) {
      const error = await rejection(client.getAgentJob(id, 'job'));
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect((error as Error).message).toContain('projectId');
    }
    expect(server.requests).toHaveLength(0);
  });

  it('refuses an empty prompt without spending a request', async () => {
    expect(await rejection(client.sendMessage('p', 'j', ''))).toBeInstanceOf(InvalidRequestError);
    expect(await rejection(client.createAgentJob('p', ''))).toBeInstanceOf(InvalidRequestError);
    expect(server.requests).toHaveLength(0);
  });

  it('posts the prompt as JSON and returns the agent job', async () => {
    server.fallback = { status: 200, body: { ...OK_JOB, unknownField: 1 } };
    const job = await client.sendMessage('proj', 'job-1', 'Fix the typo');
    expect(job).toMatchObject({ id: 'job-1', status: 'active', prLink: null, model: 'm' });
    const [req] = server.requests;
    expect(req?.method).toBe('POST');
    expect(req?.url).toBe('/v2/agent/proj/job/job-1/message');
    expect(req?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req?.body ?? '')).toEqual({ prompt: 'Fix the typo' });
  });

  it('gets an agent job that has only id and status, normalizing prLink to null', async () => {
    server.fallback = { status: 200, body: { id: 'j', status: 'completed' } };
    const job = await client.getAgentJob('proj', 'j');
    expect(job).toEqual({ id: 'j', status: 'completed', prLink: null });
    expect(isTerminalStatus(job.status)).toBe(true);
    expect(isTerminalStatus('active')).toBe(false);
    expect([...TERMINAL_STATUSES].sort()).toEqual(['archived', 'completed', 'failed']);
  });
});

describe('construction', () => {
  it('refuses a bad base URL, a missing key or a bad timeout, naming the option and never the key', () => {
    expect(() => new MintlifyClient({ baseUrl: 'api.mintlify.com', apiKey: API_KEY })).toThrow(/^baseUrl: /);
    expect(() => new MintlifyClient({ baseUrl: 'ftp://x', apiKey: API_KEY })).toThrow(/^baseUrl: /);
    expect(() => new MintlifyClient({ baseUrl: server.url, apiKey: '' })).toThrow('apiKey: missing');
    expect(() => new MintlifyClient({ baseUrl: server.url, apiKey: API_KEY, timeoutMs: 0 })).toThrow(/^timeoutMs: /);
    expect(() => new MintlifyClient({ baseUrl: server.url, apiKey: API_KEY, retry: { attempts: 0 } })).toThrow(/retry\.attempts/);
  });

  it('holds the key where serializing the client cannot reach it', () => {
    const text = JSON.stringify(client) + String(client);
    expect(text).not.toContain(API_KEY);
  });
});

describe('error classes', () => {
  it('401 and 403 are AuthError', async () => {
    for (const status of [401, 403]) {
      server.script({ status, body: { error: 'invalid key' } });
      const error = await rejection(getVisitorsPage(client, 'p', QUERY));
      expect(error).toBeInstanceOf(AuthError);
      expect(error).toMatchObject({ status, op: 'getAnalytics', reason: 'auth' });
      expect((error as Error).message).toContain('invalid key');
    }
  });

  it('404 is NotFoundError', async () => {
    server.script({ status: 404, body: { error: 'job not found' } });
    const error = await rejection(client.getAgentJob('p', 'nope'));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, op: 'getAgentJob' });
  });

  it('400 is InvalidRequestError carrying the server error and details', async () => {
    server.script({ status: 400, body: { error: 'Invalid query', details: [{ message: 'limit must be <= 250' }, { message: 'dateTo is before dateFrom' }] } });
    const error = await rejection(getVisitorsPage(client, 'p', QUERY));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as Error).message).toBe(
      'getAnalytics: HTTP 400 invalid request: Invalid query (limit must be <= 250; dateTo is before dateFrom)',
    );
    expect(error).toMatchObject({ serverMessage: 'Invalid query', details: ['limit must be <= 250', 'dateTo is before dateFrom'] });
  });

  it('429 is RateLimitedError with Retry-After in ms, or a default when absent', async () => {
    server.script({ status: 429, headers: { 'retry-after': '120' }, body: { error: 'slow down' } }, { status: 429, body: { error: 'slow down' } });
    const withHeader = await rejection(getVisitorsPage(client, 'p', QUERY));
    expect(withHeader).toBeInstanceOf(RateLimitedError);
    expect(withHeader).toMatchObject({ status: 429, retryAfterMs: 120_000, retryAfterFromServer: true });
    const withoutHeader = await rejection(getVisitorsPage(client, 'p', QUERY));
    expect(withoutHeader).toMatchObject({ retryAfterMs: 60_000, retryAfterFromServer: false });
  });

  it('5xx is ServerError with the body error text', async () => {
    server.script({ status: 502, body: '<html><body>Bad gateway</body></html>' }, { status: 500, body: { error: 'boom' } });
    const gateway = await rejection(getVisitorsPage(client, 'p', QUERY));
    expect(gateway).toBeInstanceOf(ServerError);
    expect((gateway as Error).message).toContain('Bad gateway');
    const boom = await rejection(getVisitorsPage(client, 'p', QUERY));
    expect(boom).toMatchObject({ status: 500, reason: 'server_error' });
    expect((boom as Error).message).toBe('getAnalytics: HTTP 500 server error: boom');
  });

  it('an unexpected status or a redirect is a plain MintlifyApiError, never followed', async () => {
    server.script({ status: 302, headers: { location: '/elsewhere' } }, { status: 418, body: { error: 'teapot' } });
    const redirect = await rejection(getVisitorsPage(client, 'p', QUERY));
    expect(redirect).toBeInstanceOf(MintlifyApiError);
    expect(redirect).toMatchObject({ status: 302, reason: 'unexpected_status' });
    const teapot = await rejection(getVisitorsPage(client, 'p', QUERY));
    expect((teapot as Error).message).toBe('getAnalytics: unexpected HTTP 418: teapot');
    expect(server.requests).toHaveLength(2);
  });

  it('a refused connection is NetworkError with requestSent false', async () => {
    const closed = new MintlifyClient({ baseUrl: `http://127.0.0.1:${await freePort()}`, apiKey: API_KEY, retry: { attempts: 1 } });
    const error = await rejection(getVisitorsPage(closed, 'p', QUERY));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ requestSent: false, code: 'ECONNREFUSED', reason: 'network' });
  });

  // An unresolvable host (no DNS lookup in tests): test/api/api-fetch-failure.unit.test.ts.

  it('a reset before or after the request was read, or a body cut short, is NetworkError with requestSent true', async () => {
    server.script({ reset: 'before-body' }, { reset: 'after-body' }, { partial: 'reset' });
    for (let i = 0; i < 3; i++) {
      const error = await rejection(getVisitorsPage(client, 'p', QUERY));
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as NetworkError).requestSent).toBe(true);
      expect((error as NetworkError).code).toBe('UND_ERR_SOCKET');
    }
  });

  it('no complete answer within timeoutMs is TimeoutError: no headers, late headers, or a body that stalls', async () => {
    server.script({ hang: true }, { status: 200, body: OK_PAGE, delayMs: 2_000 }, { partial: 'stall' });
    // Under fake time: the hung request is still pending just before timeoutMs and fails right at it.
    const hung = await withFakeTimeouts(async () => {
      let settled = false;
      const call = rejection(getVisitorsPage(client, 'p', QUERY)).finally(() => (settled = true));
      await advance(499);
      expect(settled).toBe(false);
      await advance(1);
      await realUntil('the timeout to fire', () => settled, 2_000);
      return call;
    });
    expect(hung).toBeInstanceOf(TimeoutError);
    expect(hung).toMatchObject({ timeoutMs: 500, reason: 'timeout' });
    expect(await rejection(getVisitorsPage(client, 'p', QUERY))).toBeInstanceOf(TimeoutError);
    expect(await rejection(getVisitorsPage(client, 'p', QUERY))).toBeInstanceOf(TimeoutError);
  });

  it('a server 408 is TimeoutError with its status', async () => {
    server.script({ status: 408 });
    expect(await rejection(getVisitorsPage(client, 'p', QUERY))).toMatchObject({ name: 'TimeoutError', status: 408 });
  });

  it('a 200 with a body that is not JSON is InvalidResponseError', async () => {
    server.script({ status: 200, body: 'not json at all' });
    const error = await rejection(getVisitorsPage(client, 'p', QUERY));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).toBe('getAnalytics: invalid response body: body is not JSON: "not json at all"');
  });

  it('every API error is a MintpipeError reported as one expected line', async () => {
    server.script({ status: 500 });
    const error = await rejection(getVisitorsPage(client, 'p', QUERY));
    expect(error).toMatchObject({ expected: true, exitCode: 1 });
    expect((error as Error).message).not.toContain('\n');
  });
});
