/**
 * A real export stack for tests: the project's emulator on a free port, the test Redis with a
 * random queue prefix, the embedded warehouse in a temp dir, and in-process workers.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type MintpipeConfig } from '../../config/index.js';
import { Runtime } from '../../src/cli/runtime.js';
import { startEmulator, type RunningEmulator, type StartEmulatorOptions } from '../../src/emulator/index.js';
import { enqueueWindows } from '../../src/export/enqueue.js';
import type { DatasetName } from '../../src/datasets/index.js';
import type { ProjectWindow, WindowKind } from '../../src/export/windows.js';
import { createLogger } from '../../src/logger.js';
import { QUEUE_NAMES, type QueueName } from '../../src/queue/queues.js';
import { runQuery, type Warehouse } from '../../src/warehouse/index.js';
import { engineEnv } from './engine.js';

export const TEST_API_KEY = 'mint_test_secret_key_0123456789';

export interface ExportStack {
  emulator: RunningEmulator;
  runtime: Runtime;
  config: MintpipeConfig;
  warehouse: Warehouse;
  /** Enqueues windows, runs them on the in-process workers, resolves when all finished. */
  /** Windows of `visitors` unless they name a dataset. */
  exportWindows(windows: Array<ProjectWindow & { dataset?: DatasetName }>, kind?: WindowKind): Promise<Array<{ state: string; failedReason?: string; returnvalue?: unknown }>>;
  rows(sql: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

export function testEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    REDIS_URL: process.env.REDIS_URL!,
    MINTLIFY_API_KEY: TEST_API_KEY,
    MINTPIPE_QUEUE_PREFIX: `t${randomBytes(4).toString('hex')}`,
    MINTPIPE_ANALYTICS_RATE: 'off',
    MINTPIPE_MESSAGE_RATE: 'off',
    LOG_LEVEL: 'silent',
    MINTPIPE_DATA_DIR: mkdtempSync(join(tmpdir(), 'mintpipe-test-')),
    // In the server test project: the shared ClickHouse server, a database of this stack's own.
    ...engineEnv(),
    ...extra,
  };
}

export async function openExportStack(
  options: { emulator?: StartEmulatorOptions; env?: Record<string, string>; dataDir?: string; /** @default ['export'] */ queues?: QueueName[] } = {},
): Promise<ExportStack> {
  const emulator = await startEmulator({ port: 0, ...options.emulator });
  const env = testEnv({ MINTLIFY_API_URL: emulator.url, ...(options.dataDir ? { MINTPIPE_DATA_DIR: options.dataDir } : {}), ...options.env });
  const config = loadConfig(env);
  const logger = createLogger({ level: env.LOG_LEVEL ?? 'silent', pretty: false });
  const runtime = await Runtime.open({ config, logger });
  const warehouse = await runtime.warehouse();
  await runtime.startWorkers(options.queues ?? [QUEUE_NAMES.export]);
  const queue = runtime.queue(QUEUE_NAMES.export);
  return {
    emulator,
    runtime,
    config,
    warehouse,
    async exportWindows(windows, kind = 'manual') {
      const enqueued = await enqueueWindows(queue, windows.map((w) => ({ ...w, dataset: w.dataset ?? 'visitors', kind })));
      const results = [];
      for (const e of enqueued) {
        for (;;) {
          // The state first, then the job: a job read before it finished has no return value yet.
          const state = await queue.getJobState(e.jobId);
          const job = await queue.getJob(e.jobId);
          if (state === 'completed' || state === 'failed' || state === 'unknown' || !job) {
            results.push({ state, failedReason: job?.failedReason, returnvalue: job?.returnvalue });
            break;
          }
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      return results;
    },
    async rows(sql) {
      return (await runQuery(warehouse, sql)).rows;
    },
    async close() {
      await runtime.close();
      await emulator.close();
    },
  };
}
