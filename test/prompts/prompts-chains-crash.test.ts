import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { batchStatus, PromptStore, submitBatch, type PromptInput } from '../../src/prompts/index.js';
import { openWarehouse, runQuery } from '../../src/warehouse/index.js';
import { crashTestEnv, killPromptWorkers, startPromptWorker } from '../support/prompt-worker-process.js';
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

describe('a batch of chains that create their jobs, its worker killed mid-batch', () => {
  it('is finished by a new worker: no create or message POSTed twice, each chain in order on its own job, in-flight steps ambiguous', async () => {
    // Every create and message is processed 600 ms after it arrives, so a kill catches POSTs in flight.
    emulator = await startEmulator({ port: 0, seed: 11, agentTimeMs: 150, faults: { slowRate: 1, slowMs: 600, routes: ['message', 'create'] } });
    const env = crashTestEnv(emulator.url, 'tcc');
    redis = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
    queue = new Queue('prompts', { connection: redis, prefix: queueKeyPrefix(env.MINTPIPE_QUEUE_PREFIX!) });
    const store = new PromptStore(redis, env.MINTPIPE_QUEUE_PREFIX);
    const chains = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const rows: PromptInput[] = [];
    for (let step = 1; step <= 3; step++) for (const name of chains) rows.push({ projectId: 'crash', chain: name, prompt: `${name} step ${step}` });
    const batch = await submitBatch({ redis, queue, prefix: env.MINTPIPE_QUEUE_PREFIX }, rows, { allowCreate: true });

    const first = startPromptWorker(env);
    const sendingNow = async () => (await store.readMany(batch.promptIds)).filter((r) => r?.status === 'sending').map((r) => r!);
    // Kill once some POSTs were processed and others are on their way (creates and messages alike). The kill
    // follows a send that has just begun (not seen sending at the previous look), so it still has most of the
    // emulator's 600 ms ahead of it even on a loaded machine: one seen sending earlier may be answered first.
    let seen = new Set<string>();
    await until('a POST just begun after some were processed', async () => {
      const now = await sendingNow();
      const fresh = now.some((r) => !seen.has(r.promptId));
      seen = new Set(now.map((r) => r.promptId));
      return emulator!.creates.length + emulator!.messages.length >= 6 && fresh ? true : undefined;
    }, 40_000, 20);
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    const inFlight = await sendingNow();
    expect(inFlight.length).toBeGreaterThan(0);

    const second = startPromptWorker(env);
    const settled = await until('the batch to settle', async () => {
      const s = await batchStatus(redis!, env.MINTPIPE_QUEUE_PREFIX, batch.batchId);
      return s.done + s.held === s.total ? s : undefined;
    }, 60_000, 50);
    second.kill('SIGTERM');
    await new Promise((resolve) => second.once('exit', resolve));
    expect(settled.total).toBe(rows.length);

    // At most once: no create and no message reached the server twice.
    const created = emulator.creates.map((c) => c.prompt);
    const sent = emulator.messages.map((m) => m.prompt);
    expect(new Set(created).size).toBe(created.length);
    expect(new Set(sent).size).toBe(sent.length);
    expect(emulator.messages.filter((m) => m.statusBefore === 'active')).toEqual([]);

    const status = await batchStatus(redis, env.MINTPIPE_QUEUE_PREFIX, batch.batchId, { prompts: true });
    for (const name of chains) {
      const steps = status.prompts!.filter((p) => p.chain === name);
      const create = emulator.creates.find((c) => c.prompt === `${name} step 1`);
      // Follow-ups went only to the job the chain's create made, in input order.
      const toJob = emulator.messages.filter((m) => m.prompt.startsWith(`${name} `));
      if (toJob.length > 0) {
        expect(create).toBeDefined();
        expect(toJob.every((m) => m.jobId === create!.jobId)).toBe(true);
      }
      expect(toJob.map((m) => m.prompt)).toEqual(steps.slice(1, 1 + toJob.length).map((s) => rows[s.position]!.prompt));
      for (const [i, step] of steps.entries()) {
        const wasInFlight = inFlight.some((r) => r.promptId === step.promptId);
        if (wasInFlight) {
          // The dead worker may have posted it: observed (a message) or held (a create), never posted again.
          expect(step.status).toBe('ambiguous');
          expect(step.error).toMatch(/stopped while (sending|creating)/);
          for (const later of steps.slice(i + 1)) expect(later.held || later.done).toBe(true);
        }
        if (step.held) expect(steps.slice(0, i).some((s) => s.status === 'ambiguous')).toBe(true);
      }
    }

    const warehouse = await openWarehouse({ database: 'mintpipe', dataDir: env.MINTPIPE_DATA_DIR });
    try {
      const rowsOut = (await runQuery(warehouse, `SELECT prompt_id, status, kind FROM mintpipe.prompt_outcomes WHERE batch_id = '${batch.batchId}'`)).rows;
      expect(new Map(rowsOut.map((r) => [String(r.prompt_id), `${String(r.kind)} ${String(r.status)}`]))).toEqual(
        new Map(status.prompts!.map((p) => [p.promptId, `${p.kind} ${p.status}`])),
      );
    } finally {
      await warehouse.close();
    }
  });
});
