/**
 * The prompt scripts on a real Redis: a connection loads a script once before its first use, so
 * a burst of concurrent first calls neither fails nor sends the script's text with each call; a
 * server that lost its scripts (a restart, SCRIPT FLUSH) is served again without an error.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
import { LuaScript } from '../../src/prompts/lua-script.js';
import { PromptStore } from '../../src/prompts/prompt-store.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';

// A Redis of this file's own: SCRIPT FLUSH would pull the scripts from under other tests.
let server: TestRedis;
let redis: Redis;
const prefix = `{lua${process.pid}}`;
// A script of this test's own (a comment makes its SHA unique to this run), so no other test loaded it.
const script = () => new LuaScript(`-- ${process.pid} ${Math.random()}\nreturn redis.call('INCR', KEYS[1])`);

beforeAll(async () => {
  server = await startTestRedis();
});

afterAll(async () => {
  await server?.stop();
});

beforeEach(() => {
  redis = new Redis(server.url);
});

afterEach(async () => {
  vi.restoreAllMocks();
  await redis.quit();
});

describe('prompt Lua scripts', () => {
  it('load once per connection before the first call: 50 concurrent first calls, one SCRIPT LOAD, no EVAL', async () => {
    const incr = script();
    const loads = vi.spyOn(redis, 'script');
    const evals = vi.spyOn(redis, 'eval');
    const key = `${prefix}:n1`;
    const results = await Promise.all(Array.from({ length: 50 }, () => incr.run(redis, [key], [])));
    expect(results.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(loads).toHaveBeenCalledTimes(1);
    expect(evals).not.toHaveBeenCalled();
    await redis.del(key);
  });

  it('still run after the server lost its scripts: the single call by EVAL, the store pipeline by loading again', async () => {
    const incr = script();
    const key = `${prefix}:n2`;
    expect(Number(await incr.run(redis, [key], []))).toBe(1);
    await redis.script('FLUSH');
    expect(Number(await incr.run(redis, [key], []))).toBe(2);
    await redis.del(key);

    // The store's pipelined scripts (here the synced marks) after a flush.
    const store = new PromptStore(redis, prefix);
    const id = 'p-lua-1';
    await redis.hset(store.keys.prompt(id), 'synced', '0');
    await store.markSyncedMany([{ promptId: id, version: 3 }]);
    await redis.script('FLUSH');
    await store.markSyncedMany([{ promptId: id, version: 5 }]);
    expect(await redis.hget(store.keys.prompt(id), 'synced')).toBe('5');
    await redis.del(store.keys.prompt(id));
  });
});
