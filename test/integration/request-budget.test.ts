import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/queue/request-budget.js';

const redis = new Redis(process.env.REDIS_URL!);
afterAll(() => redis.quit());

describe('shared request budget', () => {
  it('grants at most N requests in any window, across many takers, and says when the next one is due', async () => {
    const key = `test:${randomUUID()}`;
    const takers = Array.from({ length: 4 }, () => new RequestBudget(redis, { key, rate: { limit: 5, windowMs: 1000 }, marginMs: 0 }));
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => takers[i % 4]!.tryTake()));
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
});
