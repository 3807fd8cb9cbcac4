import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidResponseError, MintlifyClient, agentJobSchema } from '../../src/api/index.js';
import { API_KEY, OK_JOB, OK_PAGE, QUERY, startScriptedServer, type ScriptedServer } from '../support/api-scripted-server.js';
import { getVisitorsPage } from '../support/visitors-page.js';

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
  const error = await getVisitorsPage(client, 'p', QUERY).then(
    () => expect.fail('expected InvalidResponseError'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidResponseError);
  // A body that breaks the schema is not retried by the client: the export decides what it means.
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

/** The page as the client returns it for `body` (the body passed the visitors declaration's schema). */
async function accepted(body: unknown): Promise<unknown> {
  server.reset();
  server.script({ status: 200, body });
  return getVisitorsPage(client, 'p', QUERY);
}

// The export checks a visitors page against the visitors declaration (src/datasets/path-counts.ts):
// the spec calls counts approximate, so a total outside max(human, ai)…human + ai or a half count is a
// finding the row records (datasets-rows.unit.test.ts), not a broken page.
describe('visitors page validation', () => {
  it('accepts totals on and beyond both bounds of the invariant, non-whole counts and extra fields', async () => {
    const visitors = [row('/a', 3, 3, 3), row('/b', 3, 3, 6), row('/c', 7, 3, 5), row('/d', 1, 0.5, 1.5), { ...row('/e', 0, 0, 0), x: 1 }];
    const page = { ...OK_PAGE, extra: true, totals: { human: 2, ai: 3, total: 6 }, visitors };
    expect(await accepted(page)).toEqual(page);
  });

  it('names a negative or non-number count', async () => {
    expect(await pageProblem({ ...OK_PAGE, visitors: [row('/a', -1, 0, 0)] })).toBe('visitors[0].human: -1 is negative');
    expect(await pageProblem({ ...OK_PAGE, visitors: [row('/a', 1, 0, '1' as unknown as number)] })).toBe(
      'visitors[0].total: expected number, got "1"',
    );
  });

  it('names a missing hasMore, a missing array and a path that is not a string', async () => {
    const { hasMore: _hasMore, ...noHasMore } = OK_PAGE;
    expect(await pageProblem(noHasMore)).toBe('hasMore: missing (expected boolean)');
    expect(await pageProblem({ ...OK_PAGE, visitors: null })).toBe('visitors: expected array, got null');
    expect(await pageProblem({ ...OK_PAGE, visitors: [row('/a', 1, 0, 1), { ...row('', 1, 0, 1), path: 7 }] })).toBe(
      'visitors[1].path: expected string, got 7',
    );
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

  it('names a missing status of a job read and a prLink that is not a string', async () => {
    const { status: _status, ...noStatus } = OK_JOB;
    expect(await jobProblem(noStatus)).toBe('status: expected one of "active"|"completed"|"archived"|"failed", got nothing');
    expect(await jobProblem({ ...OK_JOB, prLink: 5 })).toBe('prLink: expected string, got 5');
  });

  // The spec marks no agent job field required: each answer is asked only for what its operation needs.
  it('reads a job whose body leaves out its id as the job asked for', async () => {
    server.script({ status: 200, body: { status: 'completed', prLink: 'https://github.com/o/r/pull/1' } });
    await expect(client.getAgentJob('p', 'job-7')).resolves.toMatchObject({ id: 'job-7', status: 'completed', prLink: 'https://github.com/o/r/pull/1' });
  });

  it("takes a message's 200 with an empty body as sent to the job it was sent to", async () => {
    server.script({ status: 200, body: {} });
    await expect(client.sendMessage('p', 'job-7', 'hello')).resolves.toEqual({ id: 'job-7', prLink: null });
  });

  it("names a create's 201 without the new job's id (the job cannot be followed), and takes one without a status", async () => {
    server.script({ status: 201, body: { status: 'active' } });
    const error = await client.createAgentJob('p', 'hello').then(
      () => expect.fail('expected a failure'),
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: 'AmbiguousSendError' });
    expect(String((error as Error & { cause?: unknown }).cause)).toContain('id: missing');
    server.script({ status: 201, body: { id: 'agent-9' } });
    await expect(client.createAgentJob('p', 'hello')).resolves.toEqual({ id: 'agent-9', prLink: null });
  });

  it('reports a non-JSON body with a short excerpt, once every attempt got one', async () => {
    const html = { status: 200, body: `<html>${'x'.repeat(500)}</html>` };
    server.reset();
    server.script(html, html);
    const problem = await jobProblem(html.body);
    expect(server.requests).toHaveLength(3);
    expect(problem.startsWith('body is not JSON: "<html>xxx')).toBe(true);
    expect(problem.length).toBeLessThan(120);
  });

  it('reads again after a body that is not JSON (cut short, a proxy page), and not after one that breaks the schema', async () => {
    server.reset();
    server.script({ status: 200, body: '{"visitors": [{"path": "/a", "hu' }, { status: 200, body: OK_PAGE });
    await expect(getVisitorsPage(client, 'p', QUERY)).resolves.toMatchObject({ visitors: OK_PAGE.visitors });
    expect(server.requests).toHaveLength(2);
    server.reset();
    server.script({ status: 200, body: { ...OK_JOB, status: 7 } });
    await expect(client.getAgentJob('p', 'j')).rejects.toBeInstanceOf(InvalidResponseError);
    expect(server.requests).toHaveLength(1);
  });
});
