/** The client against the project's emulator: the two agree on the contract, and faults map as designed. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AmbiguousSendError,
  InvalidRequestError,
  MintlifyClient,
  NotFoundError,
  isTerminalStatus,
} from '../../src/api/index.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { API_KEY } from '../support/api-scripted-server.js';
import { getVisitorsPage, type VisitorsPage } from '../support/visitors-page.js';

let emulator: RunningEmulator;
let client: MintlifyClient;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, seed: 7, pathsFor: () => 600, agentTimeMs: 100, jobsPerProject: 20 });
  client = new MintlifyClient({ baseUrl: emulator.url, apiKey: API_KEY, timeoutMs: 2_000, retry: { baseDelayMs: 10, maxDelayMs: 50 } });
});
afterAll(() => emulator.close());
beforeEach(() => emulator.control.clearScript());

describe('client against the emulator', () => {
  it('pages through a whole window, every page passing validation', async () => {
    const window = { dateFrom: '2026-01-01', dateTo: '2026-01-08' };
    const rows: VisitorsPage['visitors'] = [];
    let hasMore = true;
    for (let offset = 0; hasMore; offset += 250) {
      const page = await getVisitorsPage(client, 'docs-site', { ...window, limit: 250, offset });
      rows.push(...page.visitors);
      hasMore = page.hasMore;
    }
    const expected = emulator.control.window('docs-site', window.dateFrom, window.dateTo);
    expect(rows).toEqual(expected.visitors);
    expect(rows).toHaveLength(600);
  });

  it('retries a visitors page through scripted 503, reset and a body cut short', async () => {
    emulator.control.script('visitors', [{ kind: 'status', status: 503 }, { kind: 'reset' }]);
    await expect(getVisitorsPage(client, 'docs-site', { dateFrom: '2026-01-01', dateTo: '2026-01-02', limit: 10, offset: 0 })).resolves.toMatchObject({
      hasMore: true,
    });
    emulator.control.script('visitors', [{ kind: 'malformed' }]);
    const page = await getVisitorsPage(client, 'docs-site', { dateFrom: '2026-01-01', dateTo: '2026-01-02', limit: 10, offset: 0 });
    expect(page.visitors).toEqual(emulator.control.window('docs-site', '2026-01-01', '2026-01-02').visitors.slice(0, 10));
    expect(emulator.control.pendingFaults('visitors')).toBe(0);
  });

  it('sends a message, retrying a 429, and polls the job to a terminal state', async () => {
    emulator.control.script('message', [{ kind: 'rateLimit', retryAfterSeconds: 0 }]);
    const before = emulator.messages.length;
    const sent = await client.sendMessage('docs-site', 'job-1', 'Add an example');
    expect(sent.status).toBe('active');
    expect(emulator.messages.length - before).toBe(1);
    let status = sent.status!;
    for (let polls = 0; !isTerminalStatus(status) && polls < 50; polls++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = (await client.getAgentJob('docs-site', 'job-1')).status;
    }
    expect(isTerminalStatus(status)).toBe(true);
  });

  it('a 500 after the message was processed is AmbiguousSendError, and it really was processed once', async () => {
    emulator.control.script('message', [{ kind: 'status', status: 500, when: 'after' }]);
    const before = emulator.messages.length;
    const error = await client.sendMessage('docs-site', 'job-2', 'Fix links').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AmbiguousSendError);
    expect(emulator.messages.length - before).toBe(1);
  });

  it('a reset after processing is ambiguous too, and nothing is resent', async () => {
    emulator.control.script('message', [{ kind: 'reset', when: 'after' }]);
    const before = emulator.messages.length;
    expect(await client.sendMessage('docs-site', 'job-3', 'Fix links').catch((e: unknown) => e)).toBeInstanceOf(AmbiguousSendError);
    expect(emulator.messages.length - before).toBe(1);
  });

  it('an unknown job is NotFoundError and an archived one InvalidRequestError with the server text', async () => {
    expect(await client.getAgentJob('docs-site', 'job-999').catch((e: unknown) => e)).toBeInstanceOf(NotFoundError);
    emulator.control.archive('docs-site', 'job-4');
    const error = await client.sendMessage('docs-site', 'job-4', 'hi').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as Error).message).toContain('archived');
  });
});
