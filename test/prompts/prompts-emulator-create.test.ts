import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type AgentJob, type RunningEmulator, type StartEmulatorOptions } from '../../src/emulator/index.js';

const KEY = { authorization: 'Bearer mint_test_key' };

/** The emulator's clock, moved by the tests so agent runs settle without waiting. */
let nowMs = Date.UTC(2026, 0, 10, 12);
let emulator: RunningEmulator | undefined;
const opened: RunningEmulator[] = [];

afterEach(async () => {
  for (const em of opened.splice(0)) await em.close();
});

/** Starts an emulator that later requests of this test go to. */
async function open(options: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  emulator = await startEmulator({ port: 0, agentTimeMs: 5000, now: () => nowMs, ...options });
  opened.push(emulator);
  return emulator;
}

type Body = AgentJob & { error?: string; details?: { message: string }[] };

async function post(path: string, body: unknown): Promise<{ status: number; body: Body; retryAfter: string | null }> {
  const response = await fetch(`${emulator!.url}${path}`, {
    method: 'POST',
    headers: { ...KEY, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Body, retryAfter: response.headers.get('retry-after') };
}

const create = (projectId: string, body: unknown) => post(`/v2/agent/${projectId}/job`, body);

describe('emulator: creating agent jobs', () => {
  it('answers 201 with a new active job that completes or fails after its run, and logs the create', async () => {
    const em = await open();
    const first = await create('acme', { prompt: 'update the quickstart' });
    const second = await create('acme', { prompt: 'update the SDK pages' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ status: 'active', prLink: null, archivedAt: null });
    expect(second.body.id).not.toBe(first.body.id);
    expect(em.creates.map((c) => [c.projectId, c.jobId, c.prompt])).toEqual([
      ['acme', first.body.id, 'update the quickstart'],
      ['acme', second.body.id, 'update the SDK pages'],
    ]);
    expect(em.control.getJob('acme', first.body.id)!.status).toBe('active');
    nowMs += 5000;
    expect(['completed', 'failed']).toContain(em.control.getJob('acme', first.body.id)!.status);
    // A created job takes follow-up messages like any other.
    expect((await post(`/v2/agent/acme/job/${first.body.id}/message`, { prompt: 'and the FAQ' })).status).toBe(200);
    expect(em.messages.map((m) => m.jobId)).toEqual([first.body.id]);
  });

  it('refuses an empty or broken body with 400 and creates nothing', async () => {
    const em = await open();
    for (const body of [{ prompt: '' }, {}, '{not json']) {
      const answer = await create('acme', body);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toEqual(expect.any(String));
    }
    expect(em.creates).toEqual([]);
  });

  it('counts creates against the project message budget by default, and apart when told', async () => {
    await open({ messageRate: { limit: 2, windowMs: 3_600_000 } });
    expect((await create('shared', { prompt: 'a' })).status).toBe(201);
    expect((await post('/v2/agent/shared/job/job-1/message', { prompt: 'b' })).status).toBe(200);
    const refused = await create('shared', { prompt: 'c' });
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);

    const em = await open({ messageRate: { limit: 2, windowMs: 3_600_000 }, createBudget: 'separate' });
    expect((await post('/v2/agent/apart/job/job-1/message', { prompt: 'a' })).status).toBe(200);
    expect((await post('/v2/agent/apart/job/job-2/message', { prompt: 'b' })).status).toBe(200);
    expect((await post('/v2/agent/apart/job/job-3/message', { prompt: 'b' })).status).toBe(429);
    expect((await create('apart', { prompt: 'c' })).status).toBe(201);
    expect((await create('apart', { prompt: 'd' })).status).toBe(201);
    expect((await create('apart', { prompt: 'e' })).status).toBe(429);
    expect(em.creates.map((c) => c.prompt)).toEqual(['c', 'd']);
  });

  it('performs a create whose answer a fault then drops: the job exists, the client saw only an error', async () => {
    const em = await open();
    em.control.script('create', [{ kind: 'status', status: 502, when: 'after' }]);
    const answer = await create('lost', { prompt: 'did it happen?' });
    expect(answer.status).toBe(502);
    expect(em.creates).toHaveLength(1);
    expect(em.control.getJob('lost', em.creates[0]!.jobId)!.status).toBe('active');
    em.control.script('create', [{ kind: 'status', status: 503, when: 'before' }]);
    expect((await create('lost', { prompt: 'not this one' })).status).toBe(503);
    expect(em.creates).toHaveLength(1);
    expect(em.counters.routes.create.requests).toBe(2);
  });

  it('draws run times around agentTimeMs when jittered, the same for the same seed', async () => {
    const runTimes = async () => {
      const em = await open({ agentTimeMs: 1000, agentTimeJitter: 0.5, seed: 9 });
      for (let i = 0; i < 20; i++) await create('jitter', { prompt: `p${i}` });
      return em.creates.map((c) => c.runMs);
    };
    const first = await runTimes();
    expect(first.every((ms) => ms >= 500 && ms <= 1500)).toBe(true);
    expect(new Set(first).size).toBeGreaterThan(10);
    expect(await runTimes()).toEqual(first);
  });
});
