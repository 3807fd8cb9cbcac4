import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { batchStatus, PromptStore, submitBatch } from '../../src/prompts/index.js';
import { openWarehouse, runQuery } from '../../src/warehouse/index.js';
import { crashTestEnv, killPromptWorkers, startPromptWorker } from '../support/prompt-worker-process.js';
import { promptsOver } from '../support/prompts-stack.js';
import { until } from '../support/wait.js';
import { queueKeyPrefix } from '../../src/queue/queue-names.js';

let emulator: RunningEmulator | undefined;
let redis: Redis | undefined;
let queue: Queue | undefined;

afterAll(async () => {
  killPromptWorkers();
  await queue?.close();
  redis?.disconnect();
  await emulator?.close();
});

describe('a prompt worker killed mid-batch', () => {
  it('is replaced by a new worker that finishes the batch: nothing sent twice, nothing lost, order kept', async () => {
    // Every message is processed 400 ms after it arrives, so a kill catches sends in flight.
    emulator = await startEmulator({ port: 0, seed: 5, agentTimeMs: 200, faults: { slowRate: 1, slowMs: 400, routes: ['message'] } });
    const env = crashTestEnv(emulator.url, 'tc');
    redis = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
    queue = new Queue('prompts', { connection: redis, prefix: queueKeyPrefix(env.MINTPIPE_QUEUE_PREFIX!) });
    const store = new PromptStore(redis, env.MINTPIPE_QUEUE_PREFIX);
    const prompts = promptsOver('crash', 10, 3);
    const batch = await submitBatch({ redis, queue, prefix: env.MINTPIPE_QUEUE_PREFIX }, prompts);

    const first = startPromptWorker(env);
    // Kill it once some prompts went out and others are being sent right now.
    const sendingNow = async () => (await store.readMany(batch.promptIds)).filter((r) => r?.status === 'sending').map((r) => r!.promptId);
    // A send that just started has ~400 ms to go: kill then.
    let seen = new Set<string>();
    await until('a send starting after some were delivered', async () => {
      const sending = await sendingNow();
      const fresh = sending.some((id) => !seen.has(id));
      seen = new Set(sending);
      return emulator!.messages.length >= 5 && fresh ? true : undefined;
    }, 40_000, 20);
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    // What the dead worker left mid-send: it may or may not have reached the server.
    const inFlight = await sendingNow();
    expect(inFlight.length).toBeGreaterThan(0);

    const second = startPromptWorker(env);
    await until('the batch to be final', async () => {
      const s = await batchStatus(redis!, env.MINTPIPE_QUEUE_PREFIX, batch.batchId);
      return s.done === s.total ? s : undefined;
    }, 40_000, 20);
    second.kill('SIGTERM');
    await new Promise((resolve) => second.once('exit', resolve));

    const status = await batchStatus(redis, env.MINTPIPE_QUEUE_PREFIX, batch.batchId, { prompts: true });
    const received = new Map<string, number>();
    for (const m of emulator.messages) received.set(m.prompt, (received.get(m.prompt) ?? 0) + 1);
    expect([...received.values()].every((n) => n === 1)).toBe(true);
    expect(emulator.messages.filter((m) => m.statusBefore === 'active')).toEqual([]);
    for (const p of status.prompts!) {
      const times = received.get(prompts[p.position]!.prompt) ?? 0;
      if (inFlight.includes(p.promptId)) {
        // The dead worker may have posted it: it is observed, never posted again.
        expect(p.status).toBe('ambiguous');
        expect(p.error).toMatch(/stopped while sending/);
      } else if (p.status !== 'rejected') {
        expect(['completed', 'failed']).toContain(p.status);
        expect(times).toBe(1);
      }
    }
    for (let j = 1; j <= 10; j++) {
      const got = emulator.messages.filter((m) => m.jobId === `job-${j}`).map((m) => m.prompt);
      const expected = prompts.filter((p) => p.jobId === `job-${j}`).map((p) => p.prompt);
      expect(got).toEqual(expected.filter((text) => got.includes(text)));
    }

    // The warehouse (written by both workers) agrees with Redis.
    const warehouse = await openWarehouse({ database: 'mintpipe', dataDir: env.MINTPIPE_DATA_DIR });
    try {
      const rows = (await runQuery(warehouse, `SELECT prompt_id, status FROM mintpipe.prompt_outcomes WHERE batch_id = '${batch.batchId}'`)).rows;
      expect(new Map(rows.map((r) => [String(r.prompt_id), r.status]))).toEqual(new Map(status.prompts!.map((p) => [p.promptId, p.status])));
    } finally {
      await warehouse.close();
    }
  });
});
