import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/queue/request-budget.js';
import { until } from '../support/wait.js';

const redis = new Redis(process.env.REDIS_URL!);
afterAll(() => redis.quit());

describe('shared request budget', () => {
  it('grants at most N requests in any window, across many takers, and says when the next one is due', async () => {
    const key = `test:${randomUUID()}`;
    const takers = Array.from({ length: 4 }, () => new RequestBudget(redis, { key, rate: { limit: 5, windowMs: 1000 }, marginMs: 0 }));
    // Each request answered at once.
    const results = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const take = await takers[i % 4]!.tryTake();
        if (take.granted) await takers[i % 4]!.settle(take.slot);
        return take;
      }),
    );
    expect(results.filter((r) => r.granted)).toHaveLength(5);
    const waits = results.flatMap((r) => (r.granted ? [] : [r.waitMs]));
    expect(Math.max(...waits)).toBeLessThanOrEqual(1000);
    expect(Math.min(...waits)).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, Math.max(...waits) + 20));
    expect((await takers[0]!.tryTake()).granted).toBe(true);
  });

  it('pauses every taker until a Retry-After has passed, also with pacing off', async () => {
    const key = `test:${randomUUID()}`;
    const limited = new RequestBudget(redis, { key, rate: { limit: 100, windowMs: 60_000 } });
    const unpaced = new RequestBudget(redis, { key, rate: null });
    expect((await unpaced.tryTake()).granted).toBe(true);
    await limited.pause(300);
    const denied = await unpaced.tryTake();
    expect(denied.granted).toBe(false);
    expect(denied.granted ? 0 : denied.waitMs).toBeGreaterThan(200);
    expect((await limited.tryTake()).granted).toBe(false);
    await new Promise((r) => setTimeout(r, 350));
    expect((await limited.tryTake()).granted).toBe(true);
  });

  it('counts a request until a window after its answer, however long it was in flight, and no longer than its in-flight bound', async () => {
    const key = `test:${randomUUID()}`;
    const budget = new RequestBudget(redis, { key, rate: { limit: 1, windowMs: 200 }, marginMs: 0, inFlightMs: 5_000 });
    const take = await budget.tryTake();
    expect(take.granted).toBe(true);
    // In flight for longer than the window: the server may count it only now.
    await new Promise((r) => setTimeout(r, 300));
    const during = await budget.tryTake();
    expect(during.granted).toBe(false);
    await budget.settle(take.granted ? take.slot : undefined);
    const after = await budget.tryTake();
    expect(after.granted).toBe(false);
    expect(after.granted ? 0 : after.waitMs).toBeGreaterThan(150);
    await until('a window after the answer', async () => ((await budget.tryTake()).granted ? true : undefined), 2_000);
    // One never answered (its taker died mid-request) holds its slot for its in-flight bound, then frees it.
    const short = new RequestBudget(redis, { key: `test:${randomUUID()}`, rate: { limit: 1, windowMs: 100 }, marginMs: 0, inFlightMs: 200 });
    expect((await short.tryTake()).granted).toBe(true);
    expect((await short.tryTake()).granted).toBe(false);
    await until('the in-flight bound and a window', async () => ((await short.tryTake()).granted ? true : undefined), 2_000);
  });

  it('with 100 requests an hour used, grants the next one when the oldest leaves the window, not the newest', async () => {
    const key = `test:${randomUUID()}`;
    const budget = new RequestBudget(redis, { key, rate: { limit: 100, windowMs: 3_600_000 }, marginMs: 0 });
    const [seconds, micros] = await redis.time();
    const nowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const MIN = 60_000;
    // Answered requests as settle() records them: the oldest 40 minutes ago, the other 99 ten minutes ago.
    const scored = [nowMs - 40 * MIN, 'oldest', ...Array.from({ length: 99 }, (_, i) => [nowMs - 10 * MIN, `recent-${i}`]).flat()];
    await redis.zadd(`{${key}}:taken`, ...scored);
    expect((await budget.usage()).used).toBe(100);
    const next = await budget.tryTake();
    expect(next.granted).toBe(false);
    const waitMs = next.granted ? 0 : next.waitMs;
    expect(waitMs).toBeGreaterThan(20 * MIN - 5_000);
    expect(waitMs).toBeLessThanOrEqual(20 * MIN);
  });

  it('never stores a pause longer than its window (an hour with pacing off), whatever it is asked for', async () => {
    const paced = new RequestBudget(redis, { key: `test:${randomUUID()}`, rate: { limit: 100, windowMs: 5_000 } });
    const unpaced = new RequestBudget(redis, { key: `test:${randomUUID()}`, rate: null });
    for (const [budget, capMs] of [[paced, 5_000], [unpaced, 3_600_000]] as const) {
      for (const askedMs of [315_360_000_000, 1e26, Infinity]) {
        await budget.pause(askedMs);
        const usage = await budget.usage();
        expect(usage.pausedForMs).toBeGreaterThan(0);
        expect(usage.pausedForMs).toBeLessThanOrEqual(capMs);
      }
    }
  });
});

/** When Redis granted a request: Redis TIME read just before and just after the budget's script, in one MULTI. */
interface Grant {
  afterMs: number;
  beforeMs: number;
}

const toMs = ([seconds, micros]: [string, string]) => Number(seconds) * 1000 + Number(micros) / 1000;

/**
 * The shared connection, except that each budget script runs inside a MULTI between two TIME
 * reads. Nothing runs in between, so the script's own clock (Redis TIME) lies within that
 * bracket: grant times are the budget's, not this process's (which lags by event-loop delays).
 */
function bracketingConnection(onEval: (bracket: Grant) => void): Redis {
  return new Proxy(redis, {
    get(target, property, receiver) {
      if (property !== 'eval') return Reflect.get(target, property, receiver) as unknown;
      return async (...args: [string, number, ...Array<string | number>]) => {
        const results = (await target.multi().time().eval(...args).time().exec())!;
        for (const [error] of results) if (error) throw error;
        onEval({ beforeMs: toMs(results[0]![1] as [string, string]), afterMs: toMs(results[2]![1] as [string, string]) });
        return results[1]![1];
      };
    },
  });
}

interface Taker {
  arrivalMs: number;
  wants: number;
  thinkMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** Takers share one budget; each arrives at its time, takes what it wants, waits as told when refused. */
async function runTakers(limit: number, windowMs: number, takers: Taker[]): Promise<Grant[]> {
  const key = `test:${randomUUID()}`;
  const grants: Grant[] = [];
  const start = Date.now();
  const deadline = start + Math.max(...takers.map((t) => t.arrivalMs)) + 3 * windowMs;
  await Promise.all(
    takers.map(async (taker) => {
      let last: Grant | undefined;
      const budget = new RequestBudget(bracketingConnection((bracket) => (last = bracket)), { key, rate: { limit, windowMs }, marginMs: 0 });
      await sleep(start + taker.arrivalMs - Date.now());
      for (let left = taker.wants; left > 0 && Date.now() < deadline; ) {
        const result = await budget.tryTake();
        if (result.granted) {
          grants.push(last!);
          // Answered at once: it counts from its grant.
          await budget.settle(result.slot);
          left -= 1;
          await sleep(taker.thinkMs);
        } else {
          await sleep(Math.min(result.waitMs, deadline - Date.now()));
        }
      }
    }),
  );
  await redis.del(`{${key}}:taken`, `{${key}}:paused-until`);
  return grants.sort((a, b) => a.beforeMs - b.beforeMs);
}

describe('the sliding window (property, against real Redis and its clock)', () => {
  it('never grants limit+1 requests within one window span, whatever the arrivals, and does grant up to the limit', async () => {
    const scenario = fc
      .record({ limit: fc.integer({ min: 1, max: 4 }), windowMs: fc.integer({ min: 60, max: 150 }) })
      .chain(({ limit, windowMs }) =>
        fc.record({
          limit: fc.constant(limit),
          windowMs: fc.constant(windowMs),
          // Staggered starts across a few window spans, so windows fill at different moments.
          takers: fc.array(
            fc.record({
              arrivalMs: fc.integer({ min: 0, max: Math.round(2.5 * windowMs) }),
              wants: fc.integer({ min: 1, max: 2 * limit + 1 }),
              thinkMs: fc.integer({ min: 0, max: Math.round(windowMs / 2) }),
            }),
            { minLength: 2, maxLength: 6 },
          ),
        }),
      );
    await fc.assert(
      fc.asyncProperty(scenario, async ({ limit, windowMs, takers }) => {
        const grants = await runTakers(limit, windowMs, takers);
        expect(grants.length).toBeGreaterThanOrEqual(Math.min(limit, takers.reduce((n, t) => n + t.wants, 0)));
        for (let i = 0; i + limit < grants.length; i++) {
          // Grant i+limit came at least a window after grant i. The script's clock is read in
          // whole milliseconds, hence the 1 ms; a fixed window puts them close together.
          const latestGap = grants[i + limit]!.afterMs - grants[i]!.beforeMs;
          expect(latestGap, `grants ${i}..${i + limit} of ${JSON.stringify(grants)}`).toBeGreaterThan(windowMs - 1);
        }
      }),
      // Real time: every run takes a few windows. No shrinking, which would replay runs at length.
      { numRuns: 10, endOnFailure: true },
    );
  });
});
