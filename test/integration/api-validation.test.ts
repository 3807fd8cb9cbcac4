import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidResponseError, MintlifyClient, agentJobSchema, visitorsPageSchema } from '../../src/api/index.js';
import { API_KEY, OK_JOB, OK_PAGE, QUERY, startScriptedServer, type ScriptedServer } from '../support/api-scripted-server.js';

let server: ScriptedServer;
let client: MintlifyClient;

beforeAll(async () => {
  server = await startScriptedServer();
  client = new MintlifyClient({ baseUrl: server.url, apiKey: API_KEY, retry: { attempts: 3, baseDelayMs: 10 } });
});
afterAll(() => server.close());

/** The problem reported for a visitors page with `body`, and the number of requests it took. */
async function pageProblem(body: unknown): Promise<string> {
  server.reset();
  server.script({ status: 200, body });
  const error = await client.getVisitors('p', QUERY).then(
    () => expect.fail('expected InvalidResponseError'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidResponseError);
  // An invalid body is not retried by the client: the export decides what it means.
  expect(server.requests).toHaveLength(1);
  return (error as InvalidResponseError).problem;
}

async function jobProblem(body: unknown): Promise<string> {
  server.script({ status: 200, body });
  const error = await client.getAgentJob('p', 'j').then(
    () => expect.fail('expected InvalidResponseError'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidResponseError);
  return (error as InvalidResponseError).problem;
}

const row = (path: string, human: number, ai: number, total: number) => ({ path, human, ai, total });

describe('visitors page validation', () => {
  it('accepts totals on both bounds of the invariant and extra fields', () => {
    const page = { ...OK_PAGE, extra: true, visitors: [row('/a', 3, 3, 3), row('/b', 3, 3, 6), { ...row('/c', 0, 0, 0), x: 1 }] };
    expect(visitorsPageSchema.safeParse(page).success).toBe(true);
  });

  it('names the row whose total is below max(human, ai)', async () => {
    const visitors = [row('/a', 1, 1, 1), row('/b', 1, 1, 2), row('/c', 2, 0, 2), row('/d', 7, 3, 5)];
    expect(await pageProblem({ ...OK_PAGE, visitors })).toBe('visitors[3].total: 5 is less than max(human, ai) = 7');
  });

  it('names site totals above human + ai', async () => {
    expect(await pageProblem({ ...OK_PAGE, totals: { human: 2, ai: 3, total: 6 } })).toBe('totals.total: 6 is more than human + ai = 5');
  });

  it('names a negative, fractional or unsafe count', async () => {
    expect(await pageProblem({ ...OK_PAGE, visitors: [row('/a', -1, 0, 0)] })).toBe('visitors[0].human: -1 is negative');
    expect(await pageProblem({ ...OK_PAGE, visitors: [row('/a', 1, 0.5, 1)] })).toBe('visitors[0].ai: expected int, got 0.5');
    expect(await pageProblem({ ...OK_PAGE, totals: { human: 2 ** 60, ai: 0, total: 2 ** 60 } })).toMatch(
      /^totals\.human: 1152921504606847000 is not a safe integer/,
    );
    expect(await pageProblem({ ...OK_PAGE, visitors: [row('/a', 1, 0, '1' as unknown as number)] })).toBe(
      'visitors[0].total: expected number, got "1"',
    );
  });

  it('names a missing hasMore, a missing array and an empty path', async () => {
    const { hasMore: _hasMore, ...noHasMore } = OK_PAGE;
    expect(await pageProblem(noHasMore)).toBe('hasMore: missing (expected boolean)');
    expect(await pageProblem({ ...OK_PAGE, visitors: null })).toBe('visitors: expected array, got null');
    expect(await pageProblem({ ...OK_PAGE, visitors: [row('/a', 1, 0, 1), row('', 1, 0, 1)] })).toBe('visitors[1].path: empty path');
  });

  it('reports a body that is not an object, and counts further problems', async () => {
    expect(await pageProblem([1, 2])).toBe('body: expected object, got an array');
    expect(await pageProblem({ visitors: [] })).toBe('totals: missing (expected object) (and 1 more problem)');
  });
});

describe('agent job validation', () => {
  it('accepts a job with unknown extra fields and anything in archivedAt', () => {
    const parsed = agentJobSchema.parse({ ...OK_JOB, archivedAt: 0, surprise: { a: 1 } });
    expect(parsed).toMatchObject({ id: 'job-1', archivedAt: 0 });
  });

  it('names a status outside the enum', async () => {
    expect(await jobProblem({ ...OK_JOB, status: 'done' })).toBe(
      'status: expected one of "active"|"completed"|"archived"|"failed", got "done"',
    );
  });

  it('names a missing id and a prLink that is not a string', async () => {
    expect(await jobProblem({ status: 'active' })).toBe('id: missing (expected string)');
    expect(await jobProblem({ ...OK_JOB, prLink: 5 })).toBe('prLink: expected string, got 5');
  });

  it('reports a non-JSON body with a short excerpt', async () => {
    const problem = await jobProblem(`<html>${'x'.repeat(500)}</html>`);
    expect(problem.startsWith('body is not JSON: "<html>xxx')).toBe(true);
    expect(problem.length).toBeLessThan(120);
  });
});
