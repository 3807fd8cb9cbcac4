/**
 * The test stack (test/support/test-stack.ts) removes all it made: on close, and when its start
 * fails part way, no key of its prefix is left in Redis, its data dir is gone, and its warehouse is
 * let go (a process holds one embedded directory at a time, so the next stack could not open).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_NAMES } from '../../src/queue/queues.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { openDashboardStack } from '../support/dashboard-stack.js';
import { openExportStack } from '../support/export-stack.js';
import { openPromptStack } from '../support/prompts-stack.js';
import { runCli } from '../support/run-cli.js';
import { openCliStack, openTestStack } from '../support/test-stack.js';

/** A name of this test's own: every prefix and temp dir of its stacks carries it. */
const uniqueName = () => `ts${randomBytes(3).toString('hex')}`;

async function keysOf(url: string, name: string): Promise<string[]> {
  const redis = new Redis(url);
  try {
    return await redis.keys(`*${name}*`);
  } finally {
    redis.disconnect();
  }
}

const dirsOf = (name: string) => readdirSync(tmpdir()).filter((entry) => entry.startsWith(`mintpipe-${name}-`));

/**
 * Nothing of an earlier stack is held: the next one gets a data dir of its own (none was left
 * shared) and its warehouse opens (a process holds one embedded directory at a time).
 */
async function expectNothingHeld(): Promise<void> {
  const name = uniqueName();
  const next = await openTestStack({ name });
  try {
    expect(basename(next.dataDir)).toMatch(new RegExp(`^mintpipe-${name}-`));
  } finally {
    await next.close();
  }
}

/** The stack has keys under its prefix and its data dir; once closed, neither, and nothing held. */
async function expectClosedClean(stack: { prefix: string; dataDir: string; close(): Promise<void> }): Promise<void> {
  expect((await keysOf(process.env.REDIS_URL!, stack.prefix)).length).toBeGreaterThan(0);
  expect(existsSync(stack.dataDir)).toBe(true);
  await stack.close();
  expect(await keysOf(process.env.REDIS_URL!, stack.prefix)).toEqual([]);
  expect(existsSync(stack.dataDir)).toBe(false);
  await expectNothingHeld();
}

describe('a test stack', () => {
  it('leaves no key of its prefix in Redis, no data dir and no warehouse held once closed, workers, queues and all', async () => {
    const name = uniqueName();
    const stack = await openTestStack({ name, emulator: {}, workers: [QUEUE_NAMES.export] });
    await stack.queue(QUEUE_NAMES.export).add('window', { later: true }, { delay: 3_600_000 });
    await stack.queue(QUEUE_NAMES.prompts).add('prompt', { later: true }, { delay: 3_600_000 });
    await stack.runtime.redis.set(`${stack.prefix}:installation:somewhere`, '{}');
    await stack.rows('SELECT count() FROM export_runs');
    expect(stack.prefix.startsWith(name)).toBe(true);
    expect((await keysOf(process.env.REDIS_URL!, name)).length).toBeGreaterThan(3);
    expect(existsSync(join(stack.dataDir, 'clickhouse'))).toBe(true);

    await stack.close();
    expect(await keysOf(process.env.REDIS_URL!, name)).toEqual([]);
    expect(existsSync(stack.dataDir)).toBe(false);
    expect(dirsOf(name)).toEqual([]);
    await expectNothingHeld();
  });

  it('whose emulator option is invalid fails to open and leaves no data dir behind, and nothing held', async () => {
    const name = uniqueName();
    await expect(openTestStack({ name, emulator: { port: 70_000 } })).rejects.toThrow(/port/i);
    expect(dirsOf(name)).toEqual([]);
    expect(await keysOf(process.env.REDIS_URL!, name)).toEqual([]);
    await expectNothingHeld();
  });

  describe('whose workers are refused after its runtime and warehouse opened', () => {
    let volatile: TestRedis;
    beforeAll(async () => {
      volatile = await startTestRedis(['--appendonly', 'no']);
    });
    afterAll(() => volatile?.stop());

    it('lets go of its warehouse and removes its data dir and keys, so the next stack opens', async () => {
      const name = uniqueName();
      const refused = openTestStack({ name, env: { REDIS_URL: volatile.url }, workers: [QUEUE_NAMES.prompts] });
      await expect(refused).rejects.toThrow(/refusing to run the prompts queue/);
      expect(dirsOf(name)).toEqual([]);
      expect(await keysOf(volatile.url, name)).toEqual([]);
      await expectNothingHeld();
    });
  });
});

describe('each preset', () => {
  it('the export stack leaves nothing once its windows ran and it closed', async () => {
    const stack = await openExportStack();
    expect(await stack.exportWindows([{ projectId: 'preset-docs', dateFrom: '2026-10-01', dateTo: '2026-10-02' }])).toMatchObject([{ state: 'completed' }]);
    await expectClosedClean(stack);
  });

  it('the prompt stack leaves nothing once its batch finished and it closed', async () => {
    const stack = await openPromptStack();
    const batch = await stack.submit([{ projectId: 'preset', jobId: 'job-1', prompt: 'hello' }]);
    await stack.finish(batch.batchId);
    await expectClosedClean(stack);
  });

  it('the dashboard stack leaves nothing, its queues under the plain prefix too', async () => {
    const stack = await openDashboardStack();
    await stack.queue(QUEUE_NAMES.export).add('window', { later: true }, { delay: 3_600_000 });
    expect(await keysOf(process.env.REDIS_URL!, `${stack.prefix}:export`)).not.toEqual([]);
    await expectClosedClean(stack);
  });
});

describe('a CLI stack (for tests that run mintpipe as child processes)', () => {
  it('leaves no key its children wrote under its prefix, no data dir and nothing held once closed', async () => {
    const stack = await openCliStack({ emulator: {} });
    const run = await runCli(['export', '--project', 'cli-docs', '--from', '2026-10-01', '--to', '2026-10-02'], stack.env);
    expect(run.code).toBe(0);
    await expectClosedClean(stack);
  });
});
