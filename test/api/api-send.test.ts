import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AmbiguousSendError,
  AuthError,
  InvalidRequestError,
  InvalidResponseError,
  MintlifyApiError,
  MintlifyClient,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  TimeoutError,
} from '../../src/api/index.js';
import { freePort } from '../support/ports.js';
import { API_KEY, OK_JOB, startScriptedServer, type ScriptedServer } from '../support/api-scripted-server.js';
import { advance, realUntil, withFakeTimeouts } from '../support/fake-timeouts.js';
import { rejection } from '../support/wait.js';

let server: ScriptedServer;

function clientFor(url: string, attempts = 6): MintlifyClient {
  return new MintlifyClient({ baseUrl: url, apiKey: API_KEY, timeoutMs: 1_500, retry: { attempts, baseDelayMs: 10, maxDelayMs: 100 } });
}

beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  server.fallback = { status: 200, body: OK_JOB };
});

describe('a message POST that may have been processed is never retried', () => {
  it.each([
    ['a 500', { status: 500, body: { error: 'boom' } }, ServerError, 'server_error'],
    ['a 503 with Retry-After', { status: 503, headers: { 'retry-after': '0' } }, ServerError, 'server_error'],
    ['a reset after the request was read', { reset: 'after-body' }, NetworkError, 'network'],
    ['a reset before the request was read', { reset: 'before-body' }, NetworkError, 'network'],
    ['a body cut short', { partial: 'reset' }, NetworkError, 'network'],
    ['no answer within timeoutMs', { hang: true }, TimeoutError, 'timeout'],
    ['a server 408', { status: 408 }, TimeoutError, 'timeout'],
    ['a malformed 200 body', { status: 200, body: { id: 'job-1', status: 'exploded' } }, InvalidResponseError, 'invalid_response'],
    ['a 200 that is not JSON', { status: 200, body: 'OK' }, InvalidResponseError, 'invalid_response'],
    ['an unexpected 409', { status: 409 }, MintlifyApiError, 'unexpected_status'],
  ] as const)('%s → AmbiguousSendError after exactly one request', async (_label, step, causeClass, reason) => {
    server.script(step);
    const error = await rejection(clientFor(server.url).sendMessage('p', 'j', 'hello'));
    expect(error).toBeInstanceOf(AmbiguousSendError);
    expect(error).toMatchObject({ op: 'sendMessage', reason });
    expect((error as AmbiguousSendError).cause).toBeInstanceOf(causeClass);
    expect((error as Error).message).toMatch(/^sendMessage: the message may have been processed/);
    expect(server.requests).toHaveLength(1);
  });

  it('keeps the status of the failure it wraps', async () => {
    server.script({ status: 502 });
    expect(await rejection(clientFor(server.url).sendMessage('p', 'j', 'x'))).toMatchObject({ status: 502, reason: 'server_error' });
  });
});

describe('a message POST the server provably did not take', () => {
  it('is retried after a 429, honouring Retry-After, and then succeeds', async () => {
    server.script({ status: 429, headers: { 'retry-after': '1' }, body: { error: 'rate limited' } });
    const outcomes: string[] = [];
    const client = new MintlifyClient({ baseUrl: server.url, apiKey: API_KEY, timeoutMs: 1_500, retry: { baseDelayMs: 10, maxDelayMs: 100 }, onEvent: (e) => outcomes.push(e.outcome) });
    await withFakeTimeouts(async () => {
      const sending = client.sendMessage('p', 'j', 'hello');
      await realUntil('the 429 to be answered', () => outcomes.length === 1);
      await advance(999);
      expect(server.requests).toHaveLength(1);
      await advance(1);
      await realUntil('the retry', () => server.requests.length === 2, 2_000);
      expect((await sending).id).toBe('job-1');
    });
    expect(outcomes).toEqual(['retry', 'ok']);
    expect(server.requests).toHaveLength(2);
  });

  it('ends as RateLimitedError (not ambiguous) when 429s outlast the attempts', async () => {
    server.fallback = { status: 429, headers: { 'retry-after': '0' } };
    const error = await rejection(clientFor(server.url, 3).sendMessage('p', 'j', 'hello'));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(server.requests).toHaveLength(3);
  });

  it('is retried after connection refused and succeeds once a server appears', async () => {
    const port = await freePort();
    let late: ScriptedServer | undefined;
    const attempts: number[] = [];
    try {
      const job = await clientFor(`http://127.0.0.1:${port}`).sendMessage('p', 'j', 'hello', {
        // Nobody listens for the first two attempts; the server comes up before the third.
        beforeAttempt: async (attempt) => {
          attempts.push(attempt);
          if (attempt === 3) late = await startScriptedServer({ port, fallback: { status: 200, body: OK_JOB } });
        },
      });
      expect(job.id).toBe('job-1');
      expect(attempts).toEqual([1, 2, 3]);
      expect(late?.requests).toHaveLength(1);
    } finally {
      await late?.close();
    }
  });

  it('gives NetworkError with requestSent false, not AmbiguousSendError, when the connection never comes', async () => {
    const port = await freePort();
    const error = await rejection(clientFor(`http://127.0.0.1:${port}`, 3).sendMessage('p', 'j', 'hello'));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ requestSent: false, code: 'ECONNREFUSED', attempts: 3 });
  });

  it.each([
    [400, InvalidRequestError],
    [404, NotFoundError],
    [401, AuthError],
    [403, AuthError],
  ] as const)('a %i is a definite rejection, not retried', async (status, errorClass) => {
    server.script({ status, body: { error: 'prompt too long', details: [{ message: 'prompt: max 10000 characters' }] } });
    const error = await rejection(clientFor(server.url).sendMessage('p', 'j', 'hello'));
    expect(error).toBeInstanceOf(errorClass);
    expect((error as Error).message).toContain('prompt too long');
    expect(server.requests).toHaveLength(1);
  });

  it('400 carries the server details', async () => {
    server.script({ status: 400, body: { error: 'Invalid body', details: [{ message: 'prompt: must not be empty' }] } });
    const error = await rejection(clientFor(server.url).sendMessage('p', 'j', ' '));
    expect((error as Error).message).toBe('sendMessage: HTTP 400 invalid request: Invalid body (prompt: must not be empty)');
  });
});
