import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSeededArchived, startEmulator, type AgentJob, type RunningEmulator } from '../../src/emulator/index.js';

const KEY = { authorization: 'Bearer mint_test_key' };
const AGENT_TIME_MS = 5_000;

/** The emulator's clock, moved by the tests so agent runs settle without waiting. */
let nowMs = Date.UTC(2026, 0, 10, 12);
let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, agentTimeMs: AGENT_TIME_MS, now: () => nowMs });
});

afterAll(async () => {
  await emulator?.close();
});

async function getJob(projectId: string, jobId: string): Promise<{ status: number; body: AgentJob & { error?: string } }> {
  const response = await fetch(`${emulator.url}/v2/agent/${projectId}/job/${jobId}`, { headers: KEY });
  return { status: response.status, body: (await response.json()) as AgentJob & { error?: string } };
}

async function sendMessage(
  projectId: string,
  jobId: string,
  body: unknown,
  base = emulator.url,
): Promise<{ status: number; body: AgentJob & { error?: string; details?: { message: string }[] } }> {
  const response = await fetch(`${base}/v2/agent/${projectId}/job/${jobId}/message`, {
    method: 'POST',
    headers: { ...KEY, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as AgentJob & { error?: string } };
}

function firstJob(projectId: string, archived: boolean, from = 1): string {
  for (let n = from; n <= 500; n++) if (isSeededArchived(42, projectId, `job-${n}`) === archived) return `job-${n}`;
  throw new Error('no such seeded job');
}

describe('emulator agent jobs: seeded state', () => {
  it('has job-1 … job-500 in every project and answers 404 { error } for any other id', async () => {
    for (const projectId of ['acme', 'any-project']) {
      expect((await getJob(projectId, 'job-1')).status).toBe(200);
      expect((await getJob(projectId, 'job-500')).status).toBe(200);
    }
    for (const jobId of ['job-501', 'job-0', 'job-01', 'nope']) {
      const { status, body } = await getJob('acme', jobId);
      expect(status, jobId).toBe(404);
      expect(body.error).toEqual(expect.any(String));
    }
  });

  it('starts about 4% of jobs archived (as isSeededArchived predicts) and the rest completed', async () => {
    const jobs = Array.from({ length: 500 }, (_, i) => emulator.control.getJob('census', `job-${i + 1}`)!);
    const archived = jobs.filter((job) => job.status === 'archived');
    expect(archived.length).toBeGreaterThan(5);
    expect(archived.length).toBeLessThan(40);
    expect(jobs.every((job) => job.status === 'archived' || job.status === 'completed')).toBe(true);
    for (const job of jobs) expect(job.status === 'archived').toBe(isSeededArchived(42, 'census', job.id));
    for (const job of archived) expect(Date.parse(job.archivedAt!)).toBeGreaterThan(Date.parse(job.createdAt));
    // What the control sees is what the API serves.
    for (const job of archived.slice(0, 5)) expect((await getJob('census', job.id)).body).toEqual(job);
  });

  it('leaves optional fields out on some jobs: model, source and archivedAt are not promised', async () => {
    const jobs = (await Promise.all(Array.from({ length: 200 }, (_, i) => getJob('fields', `job-${i + 1}`)))).map((r) => r.body);
    expect(jobs.some((job) => !('model' in job))).toBe(true);
    expect(jobs.some((job) => !('source' in job))).toBe(true);
    expect(jobs.some((job) => job.status !== 'archived' && !('archivedAt' in job))).toBe(true);
    expect(jobs.some((job) => job.status !== 'archived' && job.archivedAt === null)).toBe(true);
    for (const job of jobs) {
      expect(job).toMatchObject({ id: expect.stringMatching(/^job-\d+$/), createdAt: expect.any(String) });
      expect(job.prLink === null || /^https:\/\/github\.com\/[\w.-]+\/[\w.-]+\/pull\/\d+$/.test(job.prLink)).toBe(true);
      if (job.source) expect(job.source).toEqual({ repository: expect.any(String), ref: expect.any(String) });
    }
  });
});

describe('emulator agent jobs: messages', () => {
  it('makes the job active, then completed or failed once agentTimeMs has passed, logging the message', async () => {
    const jobId = firstJob('acme', false);
    const sent = await sendMessage('acme', jobId, { prompt: 'Document the webhooks retry policy' });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ id: jobId, status: 'active', prLink: null });
    expect(emulator.messages.at(-1)).toEqual({
      projectId: 'acme',
      jobId,
      prompt: 'Document the webhooks retry policy',
      receivedAt: nowMs,
      statusBefore: 'completed',
      runMs: AGENT_TIME_MS,
    });
    nowMs += AGENT_TIME_MS - 1;
    expect((await getJob('acme', jobId)).body.status).toBe('active');
    nowMs += 1;
    const settled = (await getJob('acme', jobId)).body;
    expect(['completed', 'failed']).toContain(settled.status);
    if (settled.status === 'failed') expect(settled.prLink).toBeNull();
  });

  it('ends runs mostly completed, some with a pull request link and some with none, and some failed', async () => {
    const jobs = Array.from({ length: 120 }, (_, i) => `job-${i + 1}`).filter((id) => !isSeededArchived(42, 'outcomes', id));
    await Promise.all(jobs.map((id) => sendMessage('outcomes', id, { prompt: `update ${id}` })));
    nowMs += AGENT_TIME_MS;
    const settled = (await Promise.all(jobs.map((id) => getJob('outcomes', id)))).map((r) => r.body);
    const completed = settled.filter((job) => job.status === 'completed');
    expect(completed.length / settled.length).toBeGreaterThan(0.75);
    expect(settled.some((job) => job.status === 'failed')).toBe(true);
    expect(completed.some((job) => job.prLink === null)).toBe(true);
    expect(completed.filter((job) => job.prLink !== null).every((job) => /\/pull\/\d+$/.test(job.prLink!))).toBe(true);
  });

  it('records statusBefore active when a message reaches a running job, so clients that do that are caught', async () => {
    const jobId = firstJob('busy', false);
    await sendMessage('busy', jobId, { prompt: 'first' });
    await sendMessage('busy', jobId, { prompt: 'second' });
    const log = emulator.messages.filter((m) => m.projectId === 'busy');
    expect(log.map((m) => [m.prompt, m.statusBefore])).toEqual([
      ['first', 'completed'],
      ['second', 'active'],
    ]);
  });

  it('refuses a message to an archived job with 400 and does not log it', async () => {
    const jobId = firstJob('acme', true);
    const before = emulator.messages.length;
    const { status, body } = await sendMessage('acme', jobId, { prompt: 'too late' });
    expect(status).toBe(400);
    expect(body.error).toMatch(/archived/);
    expect(emulator.messages.length).toBe(before);
    expect((await getJob('acme', jobId)).body.status).toBe('archived');
  });

  it('answers 404 to a message for an unknown job', async () => {
    const { status, body } = await sendMessage('acme', 'job-9999', { prompt: 'hello' });
    expect(status).toBe(404);
    expect(body.error).toEqual(expect.any(String));
  });

  it.each([
    ['an empty prompt', { prompt: '' }],
    ['a missing prompt', {}],
    ['a non-string prompt', { prompt: 42 }],
    ['broken JSON', '{"prompt": '],
    ['a JSON array', '["prompt"]'],
  ])('refuses %s with 400 { error, details }', async (_name, body) => {
    const before = emulator.messages.length;
    const response = await sendMessage('acme', 'job-2', body);
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual([{ message: expect.any(String) }]);
    expect(emulator.messages.length).toBe(before);
  });

  it('requires the bearer key on both agent routes', async () => {
    const get = await fetch(`${emulator.url}/v2/agent/acme/job/job-1`);
    const post = await fetch(`${emulator.url}/v2/agent/acme/job/job-1/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'x' }),
    });
    expect([get.status, post.status]).toEqual([401, 401]);
  });

  it('settles runs in real time with the default clock', async () => {
    const quick = await startEmulator({ port: 0, agentTimeMs: 60 });
    try {
      const jobId = firstJob('acme', false);
      expect((await sendMessage('acme', jobId, { prompt: 'go' }, quick.url)).body.status).toBe('active');
      await new Promise((resolve) => setTimeout(resolve, 100));
      const response = await fetch(`${quick.url}/v2/agent/acme/job/${jobId}`, { headers: KEY });
      expect(['completed', 'failed']).toContain(((await response.json()) as AgentJob).status);
    } finally {
      await quick.close();
    }
  });
});

describe('emulator agent jobs: control', () => {
  it('archives a job on demand, after which it refuses messages', async () => {
    const jobId = firstJob('ctl', false);
    const archived = emulator.control.archive('ctl', jobId);
    expect(archived).toMatchObject({ status: 'archived', archivedAt: new Date(nowMs).toISOString() });
    expect((await sendMessage('ctl', jobId, { prompt: 'x' })).status).toBe(400);
  });

  it('patches jobs: removes fields set to undefined, creates unknown jobs, and a status ends a run', async () => {
    const jobId = firstJob('ctl', false, 10);
    emulator.control.setJob('ctl', jobId, { model: undefined, source: undefined });
    const patched = (await getJob('ctl', jobId)).body;
    expect('model' in patched || 'source' in patched).toBe(false);

    emulator.control.setJob('ctl', 'custom-job', { status: 'completed', prLink: 'https://github.com/acme/docs/pull/1' });
    expect((await getJob('ctl', 'custom-job')).body).toMatchObject({ id: 'custom-job', prLink: 'https://github.com/acme/docs/pull/1' });

    await sendMessage('ctl', jobId, { prompt: 'x' });
    emulator.control.setJob('ctl', jobId, { status: 'failed' });
    nowMs += AGENT_TIME_MS;
    expect(emulator.control.getJob('ctl', jobId)!.status).toBe('failed');
  });
});

describe('emulator agent jobs: a message processed asynchronously (pickupDelayMs)', () => {
  it('shows the previous state in the answer and on reads until the pickup, then runs for the agent time', async () => {
    let clock = Date.UTC(2026, 0, 11, 12);
    const late = await startEmulator({ port: 0, agentTimeMs: 1000, pickupDelayMs: 300, now: () => clock });
    try {
      const jobId = firstJob('pickup', false);
      const post = await fetch(`${late.url}/v2/agent/pickup/job/${jobId}/message`, {
        method: 'POST',
        headers: { ...KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'later' }),
      });
      expect(post.status).toBe(200);
      expect(((await post.json()) as AgentJob).status).toBe('completed');
      const read = async () => ((await (await fetch(`${late.url}/v2/agent/pickup/job/${jobId}`, { headers: KEY })).json()) as AgentJob).status;
      clock += 299;
      expect(await read()).toBe('completed');
      clock += 1;
      expect(await read()).toBe('active');
      clock += 999;
      expect(await read()).toBe('active');
      clock += 1;
      expect(['completed', 'failed']).toContain(await read());
    } finally {
      await late.close();
    }
  });
});
