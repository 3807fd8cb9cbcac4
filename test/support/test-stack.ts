/**
 * The one test stack every integration test's set-up goes through: the env (test-env.ts), the
 * project's emulator when asked, a Runtime on the test Redis under a random queue prefix, the
 * warehouse, in-process workers for the queues named. Presets per area (export-stack.ts,
 * prompts-stack.ts, dashboard-stack.ts) add only what is theirs.
 *
 * Every stack knows the dashboard token a dashboard or /metrics server on its data dir generates
 * (mintpipe's default: no MINTPIPE_DASHBOARD_TOKEN), and its `fetch` sends it as a user with it would.
 *
 * A stack removes what it made, and only that: its data dir and every Redis key of its prefix, on
 * close() or when its start fails part way. A data dir or a prefix passed in is the caller's.
 */
import { readFileSync } from 'node:fs';
import type { Queue } from 'bullmq';
import { loadConfig, type MintpipeConfig } from '../../config/index.js';
import { Runtime, type RuntimeOptions } from '../../src/cli/runtime.js';
import { dashboardTokenPath } from '../../src/ops/dashboard-token.js';
import type { RunningEmulator, StartEmulatorOptions } from '../../src/emulator/index.js';
import { createLogger, type Logger } from '../../src/logger.js';
import type { QueueName } from '../../src/queue/queues.js';
import { runQuery, type Warehouse } from '../../src/warehouse/index.js';
import { sweepPrefix } from './sweep-prefix.js';
import { shareDataDir } from './shared-data-dir.js';
import { Teardown } from './teardown.js';
import { baseEnv, randomPrefix } from './test-env.js';

export interface TestStackOptions {
  /** Names the stack's prefix and temp dir (`<name>1a2b3c4d`, `mintpipe-<name>-…`). @default t */
  name?: string;
  /** Start the project's emulator (port 0 unless given); its URL becomes MINTLIFY_API_URL. @default none */
  emulator?: StartEmulatorOptions;
  /** Settings over the stack's env; a MINTPIPE_QUEUE_PREFIX given here is the caller's to clean. */
  env?: Record<string, string>;
  /** A data dir of the caller's, left in place. @default the dir the process's open stacks share */
  dataDir?: string;
  /** The warehouse database (a random one of that name on the shared server). @default mintpipe */
  database?: string;
  /** Queues worked by in-process workers. @default none */
  workers?: QueueName[];
  /** Where the runtime logs. @default a logger at the env's LOG_LEVEL on stdout */
  logger?: Logger;
  /** The runtime's observers (API attempts, pipeline counters). @default none */
  observers?: Pick<RuntimeOptions, 'onApiEvent' | 'exportObserver' | 'promptObserver'>;
}

/** What a user who has the dashboard token of a data dir does with it. */
export interface DashboardTokenHolder {
  /** The token generated in the data dir (read once a dashboard or /metrics server started there). */
  token(): string;
  /** `fetch` with `Authorization: Bearer <token>`. */
  fetch(url: string, init?: RequestInit): Promise<Response>;
}

export function dashboardTokenHolder(dataDir: string): DashboardTokenHolder {
  const token = () => readFileSync(dashboardTokenPath(dataDir), 'utf8').trim();
  return {
    token,
    fetch: (url, init = {}) => fetch(url, { ...init, headers: { authorization: `Bearer ${token()}`, ...(init.headers as Record<string, string> | undefined) } }),
  };
}

export interface TestStack extends DashboardTokenHolder {
  env: Record<string, string>;
  config: MintpipeConfig;
  /** The queue prefix (MINTPIPE_QUEUE_PREFIX). */
  prefix: string;
  dataDir: string;
  emulator: RunningEmulator | undefined;
  runtime: Runtime;
  warehouse: Warehouse;
  /** The runtime's queue handle (BullMQ keys under the prefix in a hash tag). */
  queue(name: QueueName): Queue;
  rows(sql: string): Promise<Record<string, unknown>[]>;
  /** Registers the undo of something a preset opened on the stack: run first on close. */
  onClose(step: () => Promise<void> | void): void;
  /** Closes workers, runtime and warehouse, removes the prefix's keys, the emulator, the data dir. */
  close(): Promise<void>;
}

export async function openTestStack(options: TestStackOptions & { emulator: StartEmulatorOptions }): Promise<TestStack & { emulator: RunningEmulator }>;
export async function openTestStack(options?: TestStackOptions): Promise<TestStack>;
export async function openTestStack(options: TestStackOptions = {}): Promise<TestStack> {
  const teardown = new Teardown();
  try {
    return await open(options, teardown);
  } catch (err) {
    await teardown.run().catch(() => undefined);
    throw err;
  }
}

/** What every stack has before any process part opens: its data dir, prefix, emulator and env. */
async function openEnv(options: TestStackOptions & { alone?: boolean }, teardown: Teardown) {
  const name = options.name ?? 't';
  const data = shareDataDir({ name, dataDir: options.dataDir, database: options.database, alone: options.alone });
  teardown.add(data.release);
  const ownPrefix = options.env?.MINTPIPE_QUEUE_PREFIX === undefined;
  const prefix = options.env?.MINTPIPE_QUEUE_PREFIX ?? randomPrefix(name);
  // Imported only by a stack that asks for it: a file whose stacks run without it loads neither the
  // emulator nor fastify.
  const emulator = options.emulator ? await startEmulatorLazily(options.emulator) : undefined;
  if (emulator) teardown.add(() => emulator.close());
  const env = baseEnv({ prefix, dataDir: data.dir, engine: data.engine }, { ...(emulator ? { MINTLIFY_API_URL: emulator.url } : {}), ...options.env });
  return { env, config: loadConfig(env), prefix, ownPrefix, dataDir: data.dir, emulator };
}

async function startEmulatorLazily(options: StartEmulatorOptions): Promise<RunningEmulator> {
  const { startEmulator } = await import('../../src/emulator/index.js');
  return startEmulator({ port: 0, ...options });
}

async function open(options: TestStackOptions, teardown: Teardown): Promise<TestStack> {
  const { env, config, prefix, ownPrefix, dataDir, emulator } = await openEnv(options, teardown);
  const held: { runtime?: Runtime } = {};
  // Registered before the runtime opens, so it runs after the runtime closed: nothing writes any more.
  if (ownPrefix) teardown.add(() => held.runtime && sweepPrefix(held.runtime.redisTarget, prefix));
  const logger = options.logger ?? createLogger({ level: config.logLevel, pretty: false });
  const runtime = await Runtime.open({ config, logger, ...options.observers });
  held.runtime = runtime;
  teardown.add(() => runtime.close());
  const warehouse = await runtime.warehouse();
  if (options.workers?.length) await runtime.startWorkers(options.workers);
  return {
    ...dashboardTokenHolder(dataDir),
    env,
    config,
    prefix,
    dataDir,
    emulator,
    runtime,
    warehouse,
    queue: (queueName) => runtime.queue(queueName),
    rows: async (sql) => (await runQuery(warehouse, sql)).rows,
    onClose: (step) => teardown.add(step),
    close: () => teardown.run(),
  };
}

/** A stack for tests that run `mintpipe` as child processes: the env, a data dir of its own, the emulator; no runtime here. */
export interface CliStack extends DashboardTokenHolder {
  env: Record<string, string>;
  prefix: string;
  dataDir: string;
  emulator: RunningEmulator | undefined;
  /** Stops the emulator, removes every Redis key of the prefix and the data dir. */
  close(): Promise<void>;
}

export async function openCliStack(options: Pick<TestStackOptions, 'name' | 'emulator' | 'env' | 'dataDir'> & { emulator: StartEmulatorOptions }): Promise<CliStack & { emulator: RunningEmulator }>;
export async function openCliStack(options?: Pick<TestStackOptions, 'name' | 'emulator' | 'env' | 'dataDir'>): Promise<CliStack>;
export async function openCliStack(options: Pick<TestStackOptions, 'name' | 'emulator' | 'env' | 'dataDir'> = {}): Promise<CliStack> {
  const teardown = new Teardown();
  try {
    const { env, config, prefix, ownPrefix, dataDir, emulator } = await openEnv({ ...options, alone: true }, teardown);
    const redisUrl = config.redis.url;
    // The children are gone by close (the test ends them): what they wrote under the prefix goes.
    if (ownPrefix && redisUrl !== undefined) teardown.add(() => sweepPrefix(redisUrl, prefix));
    return { ...dashboardTokenHolder(dataDir), env, prefix, dataDir, emulator, close: () => teardown.run() };
  } catch (err) {
    await teardown.run().catch(() => undefined);
    throw err;
  }
}
