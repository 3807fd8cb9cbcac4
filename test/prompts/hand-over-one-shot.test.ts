/**
 * A one-shot command that runs workers of its own (`prompts send --wait` with no installation
 * running) publishes itself while they run, as `start` and `worker` do: another shell set for
 * another upstream is refused (exit 2, one line naming both upstreams) instead of handing its
 * prompts to those workers, which would send them with the first shell's upstream and key.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { listInstallation } from '../../src/queue/installation-info.js';
import { createRedisConnection } from '../../src/queue/redis-connection.js';
import { runCli, startCli, type RunningCli } from '../support/run-cli.js';
import { fileTempDir, testEnv } from '../support/test-env.js';
import { until } from '../support/wait.js';
import { seedWarehouse } from '../support/warehouse-template.js';

let first: RunningEmulator;
let second: RunningEmulator;
let envFirst: Record<string, string>;
let shellA: RunningCli | undefined;
const dir = fileTempDir('hand-over-one-shot');

/** A one-line prompt file for `projectId`'s job-1. */
function promptFile(name: string, projectId: string): string {
  const path = join(dir, `${name}.jsonl`);
  writeFileSync(path, `${JSON.stringify({ projectId, jobId: 'job-1', prompt: `from ${name}` })}\n`);
  return path;
}

beforeAll(async () => {
  // The first upstream's runs last long enough that shell A is still following when B asks.
  [first, second] = await Promise.all([startEmulator({ port: 0, agentTimeMs: 60_000 }), startEmulator({ port: 0, agentTimeMs: 100 })]);
  envFirst = testEnv({ MINTLIFY_API_URL: first.url, MINTPIPE_DATA_DIR: seedWarehouse(join(dir, 'data')), LOG_LEVEL: 'warn' });
});

afterAll(async () => {
  if (shellA && shellA.child.exitCode === null) {
    shellA.child.kill('SIGKILL');
    await shellA.exited;
  }
  await Promise.all([first?.close(), second?.close()]);
});

describe('a one-shot command running its own workers', () => {
  it('is published while they run, and a shell set for another upstream is refused instead of handing them its prompts', async () => {
    shellA = await startCli(['prompts', 'send', promptFile('shell-a', 'one-shot-a'), '--wait'], envFirst, () => true);
    const config = loadConfig(envFirst);
    const redis = createRedisConnection(config.redis.url!, 'hand-over-one-shot');
    try {
      const published = await until(
        'shell A to publish its workers',
        async () => (await listInstallation(redis, config.queuePrefix)).find((p) => p.pid === shellA!.child.pid),
        30_000,
      );
      expect(published).toMatchObject({ role: 'command', queues: ['prompts'], upstream: { url: first.url } });
      await until('shell A to send its prompt', async () => (first.messages.length === 1 ? true : undefined), 30_000);

      const shellB = await runCli(['prompts', 'send', promptFile('shell-b', 'one-shot-b'), '--wait'], { ...envFirst, MINTLIFY_API_URL: second.url });
      expect([shellB.code, shellB.stderr]).toEqual([
        2,
        `mintpipe: MINTLIFY_API_URL: this shell sends to ${second.url}, the running command pid ${shellA.child.pid} sends to ${first.url}; nothing was handed over: stop the running installation, or use its settings\n`,
      ]);
      // Shell B's prompt went nowhere: not through A's workers to the first upstream, nor to its own.
      expect(first.messages.map((m) => m.prompt)).toEqual(['from shell-a']);
      expect(second.messages).toEqual([]);
    } finally {
      redis.disconnect();
    }
    // Once shell A is gone, its record is too.
    shellA.child.kill('SIGTERM');
    await shellA.exited;
    const after = createRedisConnection(config.redis.url!, 'hand-over-one-shot-after');
    try {
      expect((await listInstallation(after, config.queuePrefix)).filter((p) => p.pid === shellA!.child.pid)).toEqual([]);
    } finally {
      after.disconnect();
    }
  }, 90_000);
});
