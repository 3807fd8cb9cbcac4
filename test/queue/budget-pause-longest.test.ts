import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/queue/request-budget.js';

const redis = new Redis(process.env.REDIS_URL!);
afterAll(() => redis.quit());

describe('a budget paused by two 429s', () => {
  it.each([
    ['paced', { limit: 100, windowMs: 60_000 }],
    ['unpaced', null],
  ] as const)('keeps the longer pause when a shorter Retry-After comes later (%s)', async (_name, rate) => {
    const key = `test:${randomUUID()}`;
    const first = new RequestBudget(redis, { key, rate });
    const second = new RequestBudget(redis, { key, rate });
    await first.pause(30_000);
    await second.pause(100);
    const usage = await second.usage();
    expect(usage.pausedForMs).toBeGreaterThan(20_000);
    const take = await first.tryTake();
    expect(take.granted ? 0 : take.waitMs).toBeGreaterThan(20_000);
  });
});
