import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import {
  AuthError,
  InvalidRequestError,
  InvalidResponseError,
  MintlifyClient,
  NotFoundError,
  RateLimitedError,
  ServerError,
  backoffDelayMs,
  boundRetryAfter,
  parseRetryAfterMs,
  resolveRetryPolicy,
  type ApiEvent,
} from '../../src/api/index.js';
import { API_KEY, OK_JOB, OK_PAGE, QUERY, startScriptedServer, type ScriptedServer } from '../support/api-scripted-server.js';
import { advance, realUntil, withFakeTimeouts } from '../support/fake-timeouts.js';
import { rejection } from '../support/wait.js';
import { getVisitorsPage } from '../support/visitors-page.js';

let server: ScriptedServer;
let events: ApiEvent[];

function clientWith(options: { attempts?: number; maxTotalMs?: number; timeoutMs?: number } = {}): MintlifyClient {
  return new MintlifyClient({
    baseUrl: server.url,
    apiKey: API_KEY,
    timeoutMs: options.timeoutMs ?? 1_500,
    retry: { attempts: options.attempts ?? 6, baseDelayMs: 10, maxDelayMs: 50, maxTotalMs: options.maxTotalMs },
    onEvent: (event) => events.push(event),
  });
}

beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  server.fallback = { status: 200, body: OK_PAGE };
  events = [];
});

describe('reads retry transient failures', () => {
  it('retries a GET through 500, 503, a reset, a cut body and a timeout, then returns the page', async () => {
    server.script({ status: 500 }, { status: 503 }, { reset: 'after-body' }, { partial: 'reset' }, { hang: true });
    const page = await getVisitorsPage(clientWith(), 'p', QUERY);
    expect(page).toEqual(OK_PAGE);
    expect(server.requests).toHaveLength(6);
    expect(events.map((e) => `${e.outcome}:${e.reason ?? ''}:${e.status ?? ''}`)).toEqual([
      'retry:server_error:500',
      'retry:server_error:503',
      'retry:network:',
      'retry:network:',
      'retry:timeout:',
      'ok::200',
    ]);
    expect(events.map((e) => e.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(server.pending()).toBe(0);
  });

  it('retries getAgentJob the same way', async () => {
    server.script({ status: 502 }, { reset: 'before-body' });
    server.fallback = { status: 200, body: OK_JOB };
    await expect(clientWith().getAgentJob('p', 'j')).resolves.toMatchObject({ id: 'job-1' });
    expect(server.requests).toHaveLength(3);
  });

  it('gives up after `attempts` with the last error, which knows how many attempts were made', async () => {
    server.fallback = { status: 500, body: { error: 'still down' } };
    const error = await rejection(getVisitorsPage(clientWith({ attempts: 3 }), 'p', QUERY));
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ attempts: 3, status: 500 });
    expect(server.requests).toHaveLength(3);
    expect(events.map((e) => e.outcome)).toEqual(['retry', 'retry', 'error']);
  });

  /** Under fake time: the retry comes exactly `waitMs` after the first answer, not a moment before. */
  async function retriesAfter(waitMs: number): Promise<void> {
    const call = getVisitorsPage(clientWith(), 'p', QUERY);
    await realUntil('the first attempt to fail', () => events.length === 1);
    expect(events[0]!.outcome).toBe('retry');
    await advance(waitMs - 1);
    expect(server.requests).toHaveLength(1);
    await advance(1);
    await realUntil('the retry', () => server.requests.length === 2, 2_000);
    await expect(call).resolves.toEqual(OK_PAGE);
    expect(server.requests).toHaveLength(2);
  }

  it('honours Retry-After in seconds', async () => {
    server.script({ status: 429, headers: { 'retry-after': '1' } });
    await withFakeTimeouts(() => retriesAfter(1_000));
  });

  it('honours Retry-After as an HTTP date', async () => {
    const now = new Date('2026-03-02T10:00:00.000Z');
    server.script({ status: 429, headers: { 'retry-after': new Date(now.getTime() + 2_000).toUTCString() } });
    await withFakeTimeouts(() => retriesAfter(2_000), now);
  });

  it('honours a 503 Retry-After as a minimum wait', async () => {
    server.script({ status: 503, headers: { 'retry-after': '1' } });
    await withFakeTimeouts(() => retriesAfter(1_000));
  });

  it('does not start a wait that would pass maxTotalMs: throws the 429 at once', async () => {
    server.script({ status: 429, headers: { 'retry-after': '30' } });
    // Fake time never moves here, so a rejection proves no wait was started.
    const error = await withFakeTimeouts(() => rejection(getVisitorsPage(clientWith({ maxTotalMs: 5_000 }), 'p', QUERY)));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ retryAfterMs: 30_000, attempts: 1 });
    expect(server.requests).toHaveLength(1);
  });

  it('stops retrying when attempts and waits have used maxTotalMs', async () => {
    server.fallback = { status: 200, body: OK_PAGE, delayMs: 5_000 };
    const error = await rejection(getVisitorsPage(clientWith({ attempts: 10, timeoutMs: 150, maxTotalMs: 400 }), 'p', QUERY));
    expect(error).toMatchObject({ name: 'TimeoutError' });
    // 150 ms per attempt + < 50 ms waits: a third attempt would start past 400 ms only if allowed.
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
    expect(server.requests.length).toBeLessThanOrEqual(3);
  });
});

describe('reads never retry what waiting cannot fix', () => {
  it('fails fast on 401 with exactly one request', async () => {
    server.fallback = { status: 401, body: { error: 'bad key' } };
    expect(await rejection(getVisitorsPage(clientWith(), 'p', QUERY))).toBeInstanceOf(AuthError);
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry 400, and keeps the server details', async () => {
    server.fallback = { status: 400, body: { error: 'Invalid date', details: [{ message: 'dateFrom must be before dateTo' }] } };
    const error = await rejection(getVisitorsPage(clientWith(), 'p', QUERY));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as Error).message).toContain('Invalid date (dateFrom must be before dateTo)');
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry 403 or 404', async () => {
    server.script({ status: 403 }, { status: 404 });
    expect(await rejection(getVisitorsPage(clientWith(), 'p', QUERY))).toBeInstanceOf(AuthError);
    expect(await rejection(clientWith().getAgentJob('p', 'j'))).toBeInstanceOf(NotFoundError);
    expect(server.requests).toHaveLength(2);
  });
});

describe('a Retry-After above the client\'s maximum', () => {
  it('is capped to it and logged once as a finding, however large', async () => {
    for (const hint of ['315360000', '99999999999999999999999']) {
      const lines: string[] = [];
      const logger = createLogger({ level: 'warn', pretty: false, destination: new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }) });
      server.script({ status: 429, headers: { 'retry-after': hint }, body: { error: 'slow down' } });
      const client = new MintlifyClient({ baseUrl: server.url, apiKey: API_KEY, maxRetryAfterMs: 2_000, logger });
      const error = await rejection(getVisitorsPage(client, 'p', QUERY, { retry: false }));
      expect(error).toBeInstanceOf(RateLimitedError);
      expect((error as RateLimitedError).retryAfterMs).toBe(2_000);
      const findings = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.event === 'finding');
      expect(findings).toEqual([expect.objectContaining({ kind: 'retry_after_capped', op: 'getAnalytics', retryAfter: hint, cappedMs: 2_000 })]);
    }
  });

  it('is used as it is when within the maximum, and ignored when not an integer or a date', async () => {
    server.script({ status: 429, headers: { 'retry-after': '2' }, body: {} }, { status: 429, headers: { 'retry-after': '1.5' }, body: {} });
    const client = new MintlifyClient({ baseUrl: server.url, apiKey: API_KEY, maxRetryAfterMs: 2_000, defaultRetryAfterMs: 777 });
    const within = (await rejection(getVisitorsPage(client, 'p', QUERY, { retry: false }))) as RateLimitedError;
    expect([within.retryAfterMs, within.retryAfterFromServer]).toEqual([2_000, true]);
    const junk = (await rejection(getVisitorsPage(client, 'p', QUERY, { retry: false }))) as RateLimitedError;
    expect([junk.retryAfterMs, junk.retryAfterFromServer]).toEqual([777, false]);
  });
});

describe('a body nested deeper than 256 levels', () => {
  it('is refused once as an invalid body, never retried, and logged as a finding', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', pretty: false, destination: new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }) });
    server.script({ status: 200, body: `{"visitors":${'['.repeat(257)}${']'.repeat(257)}}` });
    const client = new MintlifyClient({ baseUrl: server.url, apiKey: API_KEY, retry: { attempts: 6, baseDelayMs: 1 }, logger });
    const error = await rejection(getVisitorsPage(client, 'p', QUERY));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as InvalidResponseError).problem).toBe('body nests objects or arrays deeper than 256 levels');
    expect(server.requests).toHaveLength(1);
    const findings = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.event === 'finding');
    expect(findings).toEqual([expect.objectContaining({ kind: 'invalid_response_body', op: 'getAnalytics', status: 200 })]);
  });

  it('is accepted at 256 levels, brackets inside strings not counted', async () => {
    const { nestsDeeperThan } = await import('../../src/api/json-depth.js');
    expect(nestsDeeperThan(`${'['.repeat(256)}${']'.repeat(256)}`, 256)).toBe(false);
    expect(nestsDeeperThan(`${'['.repeat(257)}${']'.repeat(257)}`, 256)).toBe(true);
    expect(nestsDeeperThan(`["${'['.repeat(300)}\\"${'{'.repeat(300)}"]`, 256)).toBe(false);
  });
});

describe('policy helpers', () => {
  it('parses Retry-After as a non-negative integer of seconds or an HTTP date, and ignores anything else', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfterMs('3', now)).toBe(3_000);
    expect(parseRetryAfterMs(' 0 ', now)).toBe(0);
    expect(parseRetryAfterMs('Thu, 01 Jan 2026 00:00:42 GMT', now)).toBe(42_000);
    expect(parseRetryAfterMs('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    for (const junk of [null, '', '-5', '-1', '1.5', '1e3', 'soon', 'abc', '0x10']) expect(parseRetryAfterMs(junk, now)).toBeUndefined();
  });

  it('caps a Retry-After above the maximum, however large, and says what was asked', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(boundRetryAfter('120', 3_600_000, now)).toEqual({ ms: 120_000 });
    expect(boundRetryAfter('3600', 3_600_000, now)).toEqual({ ms: 3_600_000 });
    expect(boundRetryAfter('315360000', 3_600_000, now)).toEqual({ ms: 3_600_000, askedMs: 315_360_000_000 });
    expect(boundRetryAfter('99999999999999999999999', 3_600_000, now)).toMatchObject({ ms: 3_600_000 });
    expect(boundRetryAfter('9'.repeat(400), 3_600_000, now)).toMatchObject({ ms: 3_600_000 });
    expect(boundRetryAfter('Fri, 01 Jan 2036 00:00:00 GMT', 3_600_000, now)).toMatchObject({ ms: 3_600_000 });
    expect(boundRetryAfter('1.5', 3_600_000, now)).toEqual({ ms: undefined });
  });

  it('draws full-jitter backoff below min(maxDelayMs, base·2^n)', () => {
    const policy = resolveRetryPolicy({ baseDelayMs: 100, maxDelayMs: 1_000 });
    expect(backoffDelayMs(policy, 0, () => 0.999)).toBe(99);
    expect(backoffDelayMs(policy, 3, () => 0.5)).toBe(400);
    expect(backoffDelayMs(policy, 10, () => 0.999)).toBe(999);
    expect(backoffDelayMs(policy, 10, () => 0)).toBe(0);
  });

  it('resolves defaults and refuses nonsense naming the field', () => {
    expect(resolveRetryPolicy()).toEqual({ attempts: 6, baseDelayMs: 500, maxDelayMs: 30_000, maxTotalMs: 300_000 });
    expect(resolveRetryPolicy({ attempts: 2 }, { attempts: undefined, baseDelayMs: 1 })).toMatchObject({ attempts: 2, baseDelayMs: 1 });
    expect(() => resolveRetryPolicy({ attempts: 0 })).toThrow('retry.attempts must be an integer >= 1, got 0');
    expect(() => resolveRetryPolicy({ maxTotalMs: -1 })).toThrow('retry.maxTotalMs');
  });
});
