import { afterEach, describe, expect, it } from 'vitest';
import { isSeededArchived, startEmulator, type RunningEmulator, type StartEmulatorOptions } from '../../src/emulator/index.js';

const KEY = { authorization: 'Bearer mint_test_key' };
const WINDOW = 'dateFrom=2026-01-01&dateTo=2026-01-02&limit=5';
/** A moment 7.5 s into a 10-second window aligned to the epoch. */
const T0 = Date.UTC(2026, 0, 10, 12) + 7_500;

const running: RunningEmulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
});

async function start(options: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  const emulator = await startEmulator({ port: 0, ...options });
  running.push(emulator);
  return emulator;
}

function visitors(emulator: RunningEmulator, projectId = 'acme', query = WINDOW): Promise<Response> {
  return fetch(`${emulator.url}/v1/analytics/${projectId}/visitors?${query}`, { headers: KEY });
}

function message(emulator: RunningEmulator, projectId: string, jobId: string, prompt = 'hello'): Promise<Response> {
  return fetch(`${emulator.url}/v2/agent/${projectId}/job/${jobId}/message`, {
    method: 'POST',
    headers: { ...KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt }),
  });
}

async function job(emulator: RunningEmulator, projectId: string, jobId: string): Promise<{ status: string }> {
  return (await (await fetch(`${emulator.url}/v2/agent/${projectId}/job/${jobId}`, { headers: KEY })).json()) as { status: string };
}

function liveJob(projectId: string, from = 1): string {
  for (let n = from; ; n++) if (!isSeededArchived(42, projectId, `job-${n}`)) return `job-${n}`;
}

describe('emulator rate limits', () => {
  it('shares one fixed-window analytics budget across all projects, with Retry-After until the window resets', async () => {
    let nowMs = T0;
    const emulator = await start({ analyticsRate: { limit: 3, windowMs: 10_000 }, now: () => nowMs });
    expect((await visitors(emulator, 'acme')).status).toBe(200);
    expect((await visitors(emulator, 'globex')).status).toBe(200);
    expect((await visitors(emulator, 'acme', 'dateFrom=bad')).status).toBe(400);
    const refused = await visitors(emulator, 'initech');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('3');
    expect(await refused.json()).toEqual({ error: expect.any(String) });
    nowMs += 1_600;
    expect((await visitors(emulator)).headers.get('retry-after')).toBe('1');
    // Refused requests did not consume budget: the next window has all 3 again.
    nowMs = T0 + 2_500;
    for (let i = 0; i < 3; i++) expect((await visitors(emulator)).status).toBe(200);
    expect((await visitors(emulator)).status).toBe(429);
    expect(emulator.counters.analytics429).toBe(3);
    expect(emulator.counters.analyticsBudgetUsed).toBe(6);
    expect(emulator.counters.analyticsRequests).toBe(9);
    expect(emulator.counters.analyticsServed).toBe(5);
    expect(emulator.counters.routes.visitors.statuses).toEqual({ 200: 5, 400: 1, 429: 3 });
  });

  it('limits messages per project, not across projects, and counts them', async () => {
    let nowMs = T0;
    const emulator = await start({ messageRate: { limit: 2, windowMs: 60_000 }, now: () => nowMs });
    expect((await message(emulator, 'acme', liveJob('acme'))).status).toBe(200);
    expect((await message(emulator, 'acme', liveJob('acme', 20))).status).toBe(200);
    const refused = await message(emulator, 'acme', liveJob('acme', 40));
    expect(refused.status).toBe(429);
    // 52.5 s left in the minute window that started at T0 - 7.5 s.
    expect(refused.headers.get('retry-after')).toBe('53');
    expect((await message(emulator, 'globex', liveJob('globex'))).status).toBe(200);
    expect(emulator.messages.map((m) => m.projectId)).toEqual(['acme', 'acme', 'globex']);
    expect(emulator.counters.message429).toBe(1);
    expect(emulator.counters.messageRequests).toBe(4);
    nowMs += 52_500;
    expect((await message(emulator, 'acme', liveJob('acme', 40))).status).toBe(200);
  });

  it('has no limits by default', async () => {
    const emulator = await start();
    const statuses = await Promise.all(Array.from({ length: 150 }, () => visitors(emulator).then((r) => r.status)));
    expect(new Set(statuses)).toEqual(new Set([200]));
  });
});

describe('emulator scripted faults', () => {
  it('answers a scripted status with { error }, then serves normally', async () => {
    const emulator = await start();
    emulator.control.script('visitors', [{ kind: 'status', status: 503, retryAfterSeconds: 4 }, { kind: 'status', status: 500 }]);
    const first = await visitors(emulator);
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBe('4');
    expect(await first.json()).toEqual({ error: expect.any(String) });
    expect((await visitors(emulator)).status).toBe(500);
    expect((await visitors(emulator)).status).toBe(200);
    expect(emulator.control.pendingFaults('visitors')).toBe(0);
    expect(emulator.counters.faults.status).toBe(2);
  });

  it('injects a 429 with the scripted Retry-After that spends no budget', async () => {
    const emulator = await start({ analyticsRate: { limit: 1, windowMs: 3_600_000 } });
    emulator.control.script('visitors', [{ kind: 'rateLimit', retryAfterSeconds: 2 }]);
    const limited = await visitors(emulator);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect((await visitors(emulator)).status).toBe(200);
    expect(emulator.counters.analyticsBudgetUsed).toBe(1);
  });

  it('resets the connection without an answer', async () => {
    const emulator = await start();
    emulator.control.script('job', [{ kind: 'reset' }]);
    await expect(fetch(`${emulator.url}/v2/agent/acme/job/job-1`, { headers: KEY })).rejects.toThrow();
    expect(emulator.counters.routes.job.resets).toBe(1);
    expect((await fetch(`${emulator.url}/v2/agent/acme/job/job-1`, { headers: KEY })).status).toBe(200);
  });

  it('serves malformed JSON with status 200', async () => {
    const emulator = await start();
    emulator.control.script('visitors', [{ kind: 'malformed' }]);
    const response = await visitors(emulator);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    const text = await response.text();
    expect(text.startsWith('{"totals"')).toBe(true);
    expect(() => JSON.parse(text)).toThrow();
  });

  it('serves an arbitrary body, for invalid-response tests', async () => {
    const emulator = await start();
    const broken = { totals: { human: 5, ai: 5, total: 11 }, visitors: [], hasMore: true };
    emulator.control.script('visitors', [{ kind: 'body', body: broken }, { kind: 'body', body: 'not json at all' }]);
    expect(await (await visitors(emulator)).json()).toEqual(broken);
    expect(await (await visitors(emulator)).text()).toBe('not json at all');
    expect(emulator.counters.analyticsServed).toBe(0);
  });

  it('delays a request by the scripted time, and adds latencyMs to every response', async () => {
    const emulator = await start({ latencyMs: 40 });
    emulator.control.script('job', [{ kind: 'delay', ms: 250 }]);
    expect((await fetch(`${emulator.url}/v2/agent/acme/job/job-1`, { headers: KEY })).status).toBe(200);
    expect(emulator.counters.faults.delay).toBe(1);
    expect((await fetch(`${emulator.url}/v2/agent/acme/job/job-1`)).status).toBe(401);
    // Latency is not a fault: it applies to every answer, refused ones too, and scripts nothing.
    expect(emulator.options.latencyMs).toBe(40);
    expect(emulator.counters.faults.delay).toBe(1);
  });

  it('tells a failure before processing from one after: only the latter records the message and starts the run', async () => {
    const emulator = await start();
    const jobs = [liveJob('p'), liveJob('p', 10), liveJob('p', 20), liveJob('p', 30)];
    emulator.control.script('message', [
      { kind: 'status', status: 502, when: 'before' },
      { kind: 'reset', when: 'before' },
      { kind: 'status', status: 500, when: 'after' },
      { kind: 'reset', when: 'after' },
    ]);
    expect((await message(emulator, 'p', jobs[0]!)).status).toBe(502);
    await expect(message(emulator, 'p', jobs[1]!)).rejects.toThrow();
    expect(emulator.messages).toEqual([]);
    expect((await job(emulator, 'p', jobs[0]!)).status).toBe('completed');
    expect((await job(emulator, 'p', jobs[1]!)).status).toBe('completed');

    expect((await message(emulator, 'p', jobs[2]!)).status).toBe(500);
    await expect(message(emulator, 'p', jobs[3]!)).rejects.toThrow();
    expect(emulator.messages.map((m) => m.jobId)).toEqual([jobs[2], jobs[3]]);
    expect((await job(emulator, 'p', jobs[2]!)).status).toBe('active');
    expect((await job(emulator, 'p', jobs[3]!)).status).toBe('active');
  });

  it('consumes scripted faults only on their own route', async () => {
    const emulator = await start();
    emulator.control.script('message', [{ kind: 'status', status: 503 }]);
    expect((await visitors(emulator)).status).toBe(200);
    expect((await fetch(`${emulator.url}/v2/agent/acme/job/job-1`, { headers: KEY })).status).toBe(200);
    expect(emulator.control.pendingFaults('message')).toBe(1);
  });
});

describe('emulator random faults', () => {
  async function statuses(emulator: RunningEmulator, count: number): Promise<(number | 'reset')[]> {
    const seen: (number | 'reset')[] = [];
    // Sequential, so the seeded draws meet the requests in the same order every run.
    for (let i = 0; i < count; i++) {
      try {
        const response = await visitors(emulator);
        await response.text();
        seen.push(response.status);
      } catch {
        seen.push('reset');
      }
    }
    return seen;
  }

  it('draws a reproducible mix of 5xx, 429 and resets from the seed, at about the configured rates', async () => {
    const faults = { serverErrorRate: 0.2, rateLimitRate: 0.1, resetRate: 0.1 };
    const [a, b] = [await start({ faults }), await start({ faults })];
    const seenA = await statuses(a, 120);
    expect(await statuses(b, 120)).toEqual(seenA);
    const share = (match: (s: number | 'reset') => boolean) => seenA.filter(match).length / seenA.length;
    expect(share((s) => s === 200)).toBeGreaterThan(0.4);
    expect(share((s) => typeof s === 'number' && s >= 500)).toBeGreaterThan(0.08);
    expect(share((s) => s === 429)).toBeGreaterThan(0.02);
    expect(share((s) => s === 'reset')).toBeGreaterThan(0.02);
    expect(seenA.filter((s) => typeof s === 'number' && s >= 500).every((s) => [500, 502, 503].includes(s as number))).toBe(true);
    expect(a.counters.analytics429).toBe(seenA.filter((s) => s === 429).length);
  });

  it('makes slow and malformed answers at their rates, and can be switched off at runtime', async () => {
    const emulator = await start({ faults: { malformedRate: 1 } });
    const text = await (await visitors(emulator)).text();
    expect(() => JSON.parse(text)).toThrow();
    emulator.control.setFaults({ slowRate: 1, slowMs: 150 });
    expect((await visitors(emulator)).status).toBe(200);
    emulator.control.setFaults({});
    expect((await visitors(emulator)).status).toBe(200);
    expect(emulator.counters.faults).toMatchObject({ malformed: 1, delay: 1 });
  });

  it('splits message failures between before and after processing by afterProcessingRate', async () => {
    const emulator = await start({ faults: { serverErrorRate: 1, afterProcessingRate: 1, routes: ['message'] } });
    const jobId = liveJob('q');
    expect((await message(emulator, 'q', jobId)).status).toBeGreaterThanOrEqual(500);
    expect(emulator.messages).toHaveLength(1);
    expect((await job(emulator, 'q', jobId)).status).toBe('active');
    emulator.control.setFaults({ serverErrorRate: 1, afterProcessingRate: 0, routes: ['message'] });
    expect((await message(emulator, 'q', liveJob('q', 10))).status).toBeGreaterThanOrEqual(500);
    expect(emulator.messages).toHaveLength(1);
  });

  it('refuses fault rates that cannot be shares', async () => {
    await expect(start({ faults: { serverErrorRate: 0.7, resetRate: 0.5 } })).rejects.toThrow(/at most 1/);
    await expect(start({ faults: { resetRate: -0.1 } })).rejects.toThrow(/faults.resetRate/);
  });
});
