import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AmbiguousSendError, MintlifyClient, RateLimitedError, ServerError } from '../../src/api/index.js';
import { API_KEY, OK_JOB, OK_PAGE, QUERY, startScriptedServer, type ScriptedServer } from '../support/api-scripted-server.js';
import { realUntil, withFakeTimeouts } from '../support/fake-timeouts.js';
import { rejection } from '../support/wait.js';
import { getVisitorsPage } from '../support/visitors-page.js';

let server: ScriptedServer;
let client: MintlifyClient;

beforeAll(async () => {
  server = await startScriptedServer();
  client = new MintlifyClient({ baseUrl: server.url, apiKey: API_KEY, timeoutMs: 2_000, retry: { baseDelayMs: 10, maxDelayMs: 50 } });
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  server.fallback = { status: 200, body: OK_PAGE };
});

describe('beforeAttempt', () => {
  it('runs once before every attempt, with its number', async () => {
    server.script({ status: 500 }, { status: 503 });
    const seen: Array<[number, number]> = [];
    await getVisitorsPage(client, 'p', QUERY, { beforeAttempt: async (attempt) => void seen.push([attempt, server.requests.length]) });
    // Each call comes before its own request: attempt n sees n-1 requests made.
    expect(seen).toEqual([
      [1, 0],
      [2, 1],
      [3, 2],
    ]);
  });

  it('propagates its error unchanged, without a request and without a retry', async () => {
    const budgetError = new Error('budget exhausted: wait 1234 ms');
    let calls = 0;
    const error = await rejection(
      getVisitorsPage(client, 'p', QUERY, {
        beforeAttempt: async () => {
          calls++;
          throw budgetError;
        },
      }),
    );
    expect(error).toBe(budgetError);
    expect(calls).toBe(1);
    expect(server.requests).toHaveLength(0);
  });

  it('propagates an error thrown before a retry as is, after exactly one request', async () => {
    server.script({ status: 500 });
    const budgetError = new Error('budget exhausted');
    const error = await rejection(
      client.sendMessage('p', 'j', 'hi', {
        beforeAttempt: async (attempt) => {
          if (attempt === 2) throw budgetError;
        },
      }),
    );
    // A send after a 500 is ambiguous and never reaches attempt 2.
    expect(error).toBeInstanceOf(AmbiguousSendError);
    server.reset();
    server.script({ status: 429, headers: { 'retry-after': '0' } });
    const again = await rejection(
      client.sendMessage('p', 'j', 'hi', {
        beforeAttempt: async (attempt) => {
          if (attempt === 2) throw budgetError;
        },
      }),
    );
    expect(again).toBe(budgetError);
    expect(server.requests).toHaveLength(1);
  });
});

describe('onRateLimited', () => {
  it('is called on every 429 with the parsed wait', async () => {
    server.script({ status: 429, headers: { 'retry-after': '0' } }, { status: 429, headers: { 'retry-after': 'Thu, 01 Jan 1970 00:00:00 GMT' } });
    const waits: number[] = [];
    await getVisitorsPage(client, 'p', QUERY, { onRateLimited: (ms) => void waits.push(ms) });
    expect(waits).toEqual([0, 0]);
    expect(server.requests).toHaveLength(3);
  });

  it('gets the Retry-After of the one attempt made with retry: false, and the error carries it', async () => {
    server.script({ status: 429, headers: { 'retry-after': '7' } }, { status: 429 });
    const waits: number[] = [];
    const error = await rejection(client.sendMessage('p', 'j', 'hi', { retry: false, onRateLimited: async (ms) => void waits.push(ms) }));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(7_000);
    const noHeader = await rejection(getVisitorsPage(client, 'p', QUERY, { retry: false, onRateLimited: (ms) => void waits.push(ms) }));
    expect((noHeader as RateLimitedError).retryAfterMs).toBe(60_000);
    expect(waits).toEqual([7_000, 60_000]);
    expect(server.requests).toHaveLength(2);
  });

  it('propagates its error unchanged, after reporting the 429 attempt', async () => {
    const events: string[] = [];
    const reporting = new MintlifyClient({ baseUrl: server.url, apiKey: API_KEY, onEvent: (e) => events.push(`${e.status}:${e.outcome}`) });
    server.script({ status: 429, headers: { 'retry-after': '30' } });
    const pauseError = new Error('budget paused for 30000 ms');
    const error = await rejection(
      getVisitorsPage(reporting, 'p', QUERY, {
        onRateLimited: async () => {
          throw pauseError;
        },
      }),
    );
    expect(error).toBe(pauseError);
    expect(events).toEqual(['429:error']);
    expect(server.requests).toHaveLength(1);
  });
});

describe('retry overrides per call', () => {
  it('retry: false makes exactly one attempt', async () => {
    server.script({ status: 503 });
    expect(await rejection(getVisitorsPage(client, 'p', QUERY, { retry: false }))).toBeInstanceOf(ServerError);
    expect(server.requests).toHaveLength(1);
  });

  it('a partial policy overrides the client policy for that call only', async () => {
    server.fallback = { status: 500 };
    expect(await rejection(getVisitorsPage(client, 'p', QUERY, { retry: { attempts: 2 } }))).toMatchObject({ attempts: 2 });
    expect(server.requests).toHaveLength(2);
  });
});

describe('abort', () => {
  it('a signal aborted before the call rejects with its reason and sends nothing', async () => {
    const reason = new Error('shutting down');
    const error = await rejection(getVisitorsPage(client, 'p', QUERY, { signal: AbortSignal.abort(reason) }));
    expect(error).toBe(reason);
    expect(server.requests).toHaveLength(0);
  });

  it('aborting during a wait between attempts rejects with the reason at once', async () => {
    server.script({ status: 429, headers: { 'retry-after': '5' } });
    const controller = new AbortController();
    const reason = new Error('stop');
    const outcomes: string[] = [];
    const waiting = new MintlifyClient({ baseUrl: server.url, apiKey: API_KEY, retry: { baseDelayMs: 10, maxDelayMs: 50 }, onEvent: (e) => outcomes.push(e.outcome) });
    // Fake time never moves: the rejection can only come from the abort, not the 5 s wait ending.
    await withFakeTimeouts(async () => {
      const call = getVisitorsPage(waiting, 'p', QUERY, { signal: controller.signal });
      await realUntil('the 429 to be answered', () => outcomes.length === 1);
      let settled = false;
      const rejected = rejection(call).finally(() => (settled = true));
      controller.abort(reason);
      await realUntil('the abort to end the wait', () => settled, 2_000);
      expect(await rejected).toBe(reason);
    });
    expect(outcomes).toEqual(['retry']);
    expect(server.requests).toHaveLength(1);
  });

  it('aborting a GET in flight rejects with the reason; a send in flight becomes ambiguous', async () => {
    server.script({ hang: true }, { hang: true });
    const reason = new Error('stop');
    const get = await rejection(getVisitorsPage(client, 'p', QUERY, { signal: AbortSignal.timeout(100) }));
    // The caller's own reason (here the DOMException of AbortSignal.timeout), not a client error.
    expect(get).toBeInstanceOf(DOMException);
    expect(get).toMatchObject({ name: 'TimeoutError' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(reason), 100);
    const send = await rejection(client.sendMessage('p', 'j', 'hi', { signal: controller.signal }));
    expect(send).toBeInstanceOf(AmbiguousSendError);
    expect(send).toMatchObject({ reason: 'aborted' });
    expect((send as AmbiguousSendError).cause).toBe(reason);
  });
});

describe('onEvent', () => {
  it('a subscriber that throws does not fail the call', async () => {
    server.fallback = { status: 200, body: OK_JOB };
    const noisy = new MintlifyClient({
      baseUrl: server.url,
      apiKey: API_KEY,
      onEvent: () => {
        throw new Error('metrics broke');
      },
    });
    await expect(noisy.sendMessage('p', 'j', 'hi')).resolves.toMatchObject({ id: 'job-1' });
  });
});
