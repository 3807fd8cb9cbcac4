import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { testEnv } from '../support/export-stack.js';
import { startTestCluster, type TestCluster } from '../support/redis-cluster.js';
import { startCli, type RunningCli } from '../support/run-cli.js';
import { until } from '../support/wait.js';

// Every upstream answer takes a minute: the work a follower follows cannot end before the worker dies.
let emulator: RunningEmulator;
let cluster: TestCluster;
beforeAll(async () => {
  [emulator, cluster] = await Promise.all([startEmulator({ port: 0, latencyMs: 60_000 }), startTestCluster()]);
});
afterAll(async () => {
  await emulator.close();
  await cluster?.stop();
});

const GRACE_MS = 3000;

/** Starts a following command and resolves once it says it follows the running workers. */
function follower(args: string[], env: Record<string, string>): Promise<RunningCli> {
  return startCli(args, env, (printed) => printed.stderr.includes('using the running workers'));
}

describe.each([
  ['one Redis', () => process.env.REDIS_URL!],
  ['a Redis Cluster of 3 masters', () => cluster.url],
])('a --wait that follows running workers, on %s', (_where, redisUrl) => {
  it('exits 1 within the grace period plus 10 s of its only worker being killed, naming what is left and how to resume it', async () => {
    const env = testEnv({ MINTLIFY_API_URL: emulator.url, MINTPIPE_FOLLOW_GRACE: `${GRACE_MS}ms`, LOG_LEVEL: 'warn', REDIS_URL: redisUrl() });
    const promptFile = join(env.MINTPIPE_DATA_DIR!, 'prompts.jsonl');
    writeFileSync(promptFile, `${JSON.stringify({ projectId: 'docs', prompt: 'add a changelog page' })}\n${JSON.stringify({ projectId: 'docs', prompt: 'fix the typo on /quickstart' })}\n`);
    const worker = await startCli(['worker', '--queues', 'export,prompts'], env, (printed) => printed.stderr.includes('mintpipe worker:'));
    const followers: RunningCli[] = [];
    const createsBefore = emulator.counters.createRequests;
    try {
      followers.push(await follower(['export', '--project', 'docs', '--from', '2026-10-01', '--to', '2026-10-03', '--wait'], env));
      followers.push(await follower(['prompts', 'send', promptFile, '--wait', '--allow-create'], env));
      followers.push(await follower(['prompts', 'send', '--from-query', "SELECT 'docs' AS projectId, 'write the FAQ' AS prompt", '--wait', '--allow-create'], env));
      // Every create is on its way (the upstream holds it): the prompts are sent, their outcome unknown.
      await until('the three creates to reach the upstream', async () => (emulator.counters.createRequests - createsBefore >= 3 ? true : undefined), 30_000);
      worker.child.kill('SIGKILL');
      const killedAt = Date.now();
      const codes = await Promise.all(followers.map((f) => f.exited));
      expect(Date.now() - killedAt).toBeLessThan(GRACE_MS + 10_000);
      expect(codes).toEqual([1, 1, 1]);
      const [exportLines, promptLines, queryLines] = followers.map((f) => f.output().stderr.split('\n').filter((l) => l.startsWith('mintpipe: ')));
      expect(queryLines).toEqual([expect.stringMatching(/^mintpipe: no worker has served the prompts queue for 3s: 1 prompt\(s\) of batch [0-9a-f]{16} not final yet \(1 of them sent, awaiting their outcome: never send them again\); resume with/)]);
      expect(exportLines).toEqual([
        'mintpipe: no worker has served the export queue for 3s: 2 window(s) left undone; resume with `mintpipe export --project docs --dataset visitors --from 2026-10-01 --to 2026-10-03 --wait` (or start `mintpipe worker`)',
      ]);
      expect(promptLines).toHaveLength(1);
      expect(promptLines![0]).toMatch(
        /^mintpipe: no worker has served the prompts queue for 3s: 2 prompt\(s\) of batch ([0-9a-f]{16}) not final yet \(2 of them sent, awaiting their outcome: never send them again\); resume with `mintpipe prompts recover \1 --wait` \(or start `mintpipe worker`\)$/,
      );
    } finally {
      for (const running of [worker, ...followers]) if (running.child.exitCode === null) running.child.kill('SIGKILL');
    }
  }, 120_000);
});

describe('a --wait that follows a worker that was suspended (SIGSTOP): its connections stay open', () => {
  it('exits 1 once its heartbeat is late and the grace period is over, instead of waiting on it forever', async () => {
    const env = testEnv({ MINTLIFY_API_URL: emulator.url, MINTPIPE_FOLLOW_GRACE: `${GRACE_MS}ms`, LOG_LEVEL: 'warn' });
    const promptFile = join(env.MINTPIPE_DATA_DIR!, 'prompts.jsonl');
    writeFileSync(promptFile, `${JSON.stringify({ projectId: 'docs', prompt: 'add a changelog page' })}\n`);
    const worker = await startCli(['worker', '--queues', 'export,prompts'], env, (printed) => printed.stderr.includes('mintpipe worker:'));
    const followers: RunningCli[] = [];
    try {
      followers.push(await follower(['export', '--project', 'docs', '--from', '2026-10-01', '--to', '2026-10-02', '--wait'], env));
      followers.push(await follower(['prompts', 'send', promptFile, '--wait', '--allow-create'], env));
      worker.child.kill('SIGSTOP');
      const stoppedAt = Date.now();
      const codes = await Promise.all(followers.map((f) => f.exited));
      // Its record is refreshed every 10 s: late by half a period after 15 s, then the grace period.
      expect(Date.now() - stoppedAt).toBeLessThan(15_000 + GRACE_MS + 10_000);
      expect(codes).toEqual([1, 1]);
      const lines = followers.map((f) => f.output().stderr.split('\n').filter((l) => l.startsWith('mintpipe: ')));
      expect(lines).toEqual([
        [expect.stringMatching(/^mintpipe: no worker has served the export queue for 3s: 1 window\(s\) left undone; resume with /)],
        [expect.stringMatching(/^mintpipe: no worker has served the prompts queue for 3s: 1 prompt\(s\) of batch [0-9a-f]{16} not final yet/)],
      ]);
    } finally {
      worker.child.kill('SIGCONT');
      for (const running of [worker, ...followers]) if (running.child.exitCode === null) running.child.kill('SIGKILL');
    }
  }, 90_000);
});
