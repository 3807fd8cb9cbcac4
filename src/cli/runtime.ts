/**
 * What a command needs, brought up lazily and torn down in reverse order: Redis (REDIS_URL or the
 * private server), queues, the warehouse (embedded or server), the API client, in-process workers.
 * A one-shot command opens a Runtime, uses what it needs, and closes it: nothing is left running.
 */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { configuredSecrets } from '../../config/configured-secrets.js';
import type { MintpipeConfig } from '../../config/index.js';
import { MintlifyClient, type ApiEvent } from '../api/index.js';
import { UsageError } from '../errors.js';
import type { ExportObserver } from '../export/export-window.js';
import { registerSecret, type Logger } from '../logger.js';
import type { PromptObserver } from '../prompts/index.js';
import type { JobUpstream } from '../queue/job-upstream.js';
import { acquireRedis, type RedisHandle } from '../queue/private-redis.js';
import { queueKeyPrefix } from '../queue/queue-names.js';
import { openQueue, QUEUE_NAMES, type QueueName } from '../queue/queues.js';
import { closeRedisConnection, createRedisConnection } from '../queue/redis-connection.js';
import { assertDurableForPrompts, checkRedisPersistence, describePersistence, type RedisPersistenceReport } from '../queue/redis-persistence.js';
import { probeRedis } from '../queue/redis-probe.js';
import { describeRedisTarget, type RedisTarget } from '../../config/redis-url.js';
import type { WorkerSet } from '../../jobs/workers.js';
import { isLongRunning, longRunningHolder } from '../warehouse/embedded-lock.js';
import { configuredEngine, openWarehouse, type Warehouse } from '../warehouse/index.js';

export interface RuntimeOptions {
  config: MintpipeConfig;
  logger: Logger;
  /** Called for every API attempt (metrics). */
  onApiEvent?: (event: ApiEvent) => void;
  /** Counters of the export and prompt pipelines (metrics). */
  exportObserver?: ExportObserver;
  promptObserver?: PromptObserver;
  /** Aborted by the command's first stop signal: ends a wait for the warehouse (start, worker). */
  stop?: AbortSignal;
  /** The API is the built-in emulator of a start with no key (its URL and key are this process's own). */
  builtInEmulator?: boolean;
}

export class Runtime {
  private readonly queues = new Map<QueueName, Queue>();
  private readonly cleanups: Array<() => Promise<void> | void> = [];
  private readonly finalCleanups: Array<() => Promise<void> | void> = [];
  private connection: Redis | undefined;
  private warehousePromise: Promise<Warehouse> | undefined;
  private apiClient: MintlifyClient | undefined;
  private workers: WorkerSet | undefined;
  private stopGateway: (() => Promise<void>) | undefined;
  private closed = false;
  private persistenceCheck: Promise<RedisPersistenceReport> | undefined;
  private workersReleased = false;

  /**
   * How long a command waits for the embedded warehouse while another process holds it (a
   * one-shot command, or a worker restarted while the killed one is still being reaped).
   */
  static readonly WAREHOUSE_WAIT_MS = 30_000;

  /** How long a one-shot command waits for the workers of a start or worker that is starting up. */
  static readonly WORKERS_STARTING_MS = 120_000;

  /** How often a start or worker waiting for a one-shot command's warehouse says it still waits. */
  static readonly WAREHOUSE_NOTICE_MS = 30_000;

  private constructor(
    readonly config: MintpipeConfig,
    readonly logger: Logger,
    private readonly redisHandle: RedisHandle,
    private readonly options: RuntimeOptions,
  ) {}

  static async open(options: RuntimeOptions): Promise<Runtime> {
    // Also for runtimes opened without the CLI (bench, tests): every layer redacts the configured secrets.
    for (const secret of configuredSecrets(options.config)) registerSecret(secret);
    const handle = await acquireRedis({ url: options.config.redis.url, dataDir: options.config.dataDir, logger: options.logger });
    try {
      // One bounded attempt first: the long-lived connections below would wait forever for a Redis
      // that is down or refuses our password, and a command would hang instead of saying so.
      await probeRedis(handle.target);
    } catch (err) {
      await handle.release().catch(() => {});
      throw err;
    }
    return new Runtime(options.config, options.logger, handle, options);
  }

  /** Where and how every connection reaches Redis (it holds the password: never shown). */
  get redisTarget(): RedisTarget {
    return this.redisHandle.target;
  }

  /** Where Redis is, for people: without credentials. */
  get redisWhere(): string {
    return describeRedisTarget(this.redisHandle.target);
  }

  /** One shared connection for queues and plain commands. */
  get redis(): Redis {
    this.connection ??= createRedisConnection(this.redisHandle.target, 'mintpipe', this.logger);
    return this.connection;
  }

  /** BullMQ's prefix of this installation's queues: the queue prefix in a hash tag (cluster slots). */
  get queueKeyPrefix(): string {
    return queueKeyPrefix(this.config.queuePrefix);
  }

  /**
   * Whether this Redis keeps what BullMQ writes (AOF and noeviction on every master), read once
   * per runtime with INFO. For `status` and the dashboard: `describePersistence(report)` is the line.
   */
  redisPersistence(): Promise<RedisPersistenceReport> {
    this.persistenceCheck ??= checkRedisPersistence(this.redis);
    return this.persistenceCheck;
  }

  /**
   * For a process about to exit without closing (a second Ctrl-C, a close past its grace): lets go
   * of the private Redis at once, so the last one out does not leave the server running.
   */
  releaseNow(): void {
    this.redisHandle.releaseNow();
  }

  /** True once this process's workers stopped and let go of their jobs (a clean or a forced close). */
  get jobsReleased(): boolean {
    return this.workersReleased;
  }

  queue(name: QueueName): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = openQueue(name, this.redis, this.queueKeyPrefix, this.logger);
      this.queues.set(name, queue);
    }
    return queue;
  }

  /** The warehouse, opened once per process (the embedded engine allows one process per data dir). */
  warehouse(): Promise<Warehouse> {
    const opening = this.warehousePromise ?? this.openWarehouse();
    this.warehousePromise = opening;
    // A failed open is not kept: the next caller (a health check, a retried job) tries again.
    opening.catch(() => {
      if (this.warehousePromise === opening) this.warehousePromise = undefined;
    });
    return opening;
  }

  /**
   * Opens the warehouse; an embedded one is also served read-only to the other mintpipe commands
   * of this data dir (`query` while this process holds the engine's lock).
   */
  private async openWarehouse(): Promise<Warehouse> {
    // A start or worker that found the warehouse held by a one-shot command (a live start or worker
    // was refused before anything began) waits for it as long as it takes, saying so every 30 s.
    const longRunning = isLongRunning();
    const timeoutMs = longRunning ? Infinity : Runtime.WAREHOUSE_WAIT_MS;
    const warehouse = await openWarehouse({
      ...this.config.clickhouse,
      dataDir: this.config.dataDir,
      logger: this.logger,
      lockWait: {
        timeoutMs,
        repeatMs: longRunning ? Runtime.WAREHOUSE_NOTICE_MS : undefined,
        stop: this.options.stop,
        onWait: (holderPid) =>
          this.logger.warn(
            { event: 'warehouse_waiting', holderPid, timeoutMs: longRunning ? null : timeoutMs },
            `waiting ${longRunning ? '' : `up to ${timeoutMs / 1000}s `}for the embedded warehouse, in use by ${holderPid === undefined ? 'another process' : `pid ${holderPid}`}`,
          ),
      },
    });
    // Only this process may hold it: the other mintpipe commands of the data dir read through this one.
    if (warehouse.exclusiveDir !== undefined) {
      const { serveWarehouseGateway } = await import('../warehouse/warehouse-gateway.js');
      this.stopGateway = await serveWarehouseGateway(warehouse, this.config.dataDir, { concurrency: this.config.gateway.concurrency });
    }
    return warehouse;
  }

  /** The API client; refuses when no key is configured. */
  client(): MintlifyClient {
    if (!this.apiClient) {
      const key = this.config.api.key;
      if (!key) throw new UsageError('MINTLIFY_API_KEY is not set (an admin key starting with "mint_"; `mintpipe start` without one runs against the built-in emulator)');
      this.apiClient = new MintlifyClient({
        baseUrl: this.config.api.url,
        apiKey: key,
        timeoutMs: this.config.api.timeoutMs,
        retry: { attempts: this.config.api.retryAttempts, maxTotalMs: this.config.api.retryMaxTotalMs },
        // A Retry-After longer than the analytics budget's window is capped to it.
        ...(this.config.analyticsRate ? { maxRetryAfterMs: this.config.analyticsRate.windowMs } : {}),
        logger: this.logger,
        onEvent: this.options.onApiEvent,
      });
    }
    return this.apiClient;
  }

  /**
   * Whether some worker process is connected to the queue; undefined when Redis will not say
   * (BullMQ asks with CLIENT LIST, which an ACL may refuse).
   */
  async workersConnected(name: QueueName): Promise<boolean | undefined> {
    try {
      return (await this.queue(name).getWorkersCount()) > 0;
    } catch {
      return undefined;
    }
  }

  /**
   * Whether a live worker serves the queue, for a follower: connected to it, and, since a suspended
   * or hung process keeps its connections, published by a process whose heartbeat is on time.
   * Undefined when Redis will not say (then it counts as served).
   */
  async workersAlive(name: QueueName): Promise<boolean | undefined> {
    const connected = await this.workersConnected(name);
    if (connected !== true) return connected;
    const { heartbeatLate, listInstallation } = await import('../queue/installation-info.js');
    const processes = await listInstallation(this.redis, this.config.queuePrefix).catch(() => undefined);
    return processes?.some((p) => p.queues.includes(name) && !heartbeatLate(p));
  }

  /** Where this process's requests go, as jobs record it (src/queue/job-upstream.ts). */
  async upstream(): Promise<JobUpstream> {
    const { jobUpstream } = await import('../queue/job-upstream.js');
    return jobUpstream(this.redis, this.config.queuePrefix, this.config.api, this.options.builtInEmulator);
  }

  /** True when some worker process is known to be connected to the queue. */
  async hasWorkers(name: QueueName): Promise<boolean> {
    return (await this.workersConnected(name)) === true;
  }

  /**
   * Makes sure the queues are worked: uses running workers when each queue has some, otherwise
   * starts in-process workers for all of them. Returns true when it started them.
   */
  async ensureWorkers(names: QueueName[]): Promise<boolean> {
    if (this.workers) return false;
    const missing: QueueName[] = [];
    for (const name of names) if (!(await this.hasWorkers(name))) missing.push(name);
    if (missing.length === 0) return false;
    if (await this.workersStartingUp(missing)) return false;
    // Published before its workers take any job, as a start or worker is: another shell's command
    // then sees where they send (hand-over-check.ts) before it hands them work.
    const { publishProcess } = await import('../queue/installation-info.js');
    await publishProcess(this, 'command', { queues: missing, scheduler: false });
    await this.startWorkers(missing);
    return true;
  }

  /**
   * A start or worker taking this data dir's embedded warehouse is starting up: waits (up to
   * WORKERS_STARTING_MS) for its workers to connect to `names`, so the work goes to it instead of
   * to workers of this process, which could not have the warehouse. True once they serve them.
   */
  private async workersStartingUp(names: QueueName[]): Promise<boolean> {
    const path = configuredEngine(this.config).exclusiveDir;
    if (path === undefined || isLongRunning()) return false;
    const deadline = Date.now() + Runtime.WORKERS_STARTING_MS;
    let told = false;
    while (longRunningHolder(path) !== undefined && Date.now() < deadline) {
      let all = true;
      for (const name of names) if (!(await this.hasWorkers(name))) all = false;
      if (all) return true;
      if (!told) process.stderr.write(`waiting for the ${longRunningHolder(path)?.command ?? 'worker'} starting up on this data dir to serve the queues\n`);
      told = true;
      await new Promise((r) => setTimeout(r, 250));
    }
    return false;
  }

  async startWorkers(names: QueueName[]): Promise<WorkerSet> {
    if (this.workers) return this.workers;
    await this.checkRedisForWorkers(names);
    if (names.includes(QUEUE_NAMES.export)) {
      const { keepReaping } = await import('./leftover-runs.js');
      // Before any window runs: a window whose run was left behind then adopts it.
      this.onClose(await keepReaping({ warehouse: await this.warehouse(), queue: this.queue(QUEUE_NAMES.export), logger: this.logger, idleMs: this.config.export.reapAfterMs }));
    }
    // Loaded here, not with the runtime: the processors (export, nightly plan, triage) and what they
    // import are only needed by a process that works jobs, not by one that only enqueues or reads.
    const { startWorkers } = await import('../../jobs/workers.js');
    this.workers = await startWorkers({
      names,
      config: this.config,
      logger: this.logger,
      redisTarget: this.redisTarget,
      queue: (name) => this.queue(name),
      redis: this.redis,
      warehouse: await this.warehouse(),
      client: this.client(),
      exportObserver: this.options.exportObserver,
      promptObserver: this.options.promptObserver,
      upstream: await this.upstream(),
    });
    return this.workers;
  }

  /**
   * Workers check the Redis they are given: less than AOF with noeviction is a loud warning, and
   * the prompts queue refuses it (a forgotten `sending` mark resends a prompt) unless allowed.
   */
  private async checkRedisForWorkers(names: QueueName[]): Promise<void> {
    const report = await this.redisPersistence();
    if (report.durable) return;
    this.logger.warn(
      { event: 'redis_not_durable', problems: report.problems, allowVolatile: this.config.redis.allowVolatile },
      `Redis is ${describePersistence(report)}`,
    );
    if (names.includes(QUEUE_NAMES.prompts)) assertDurableForPrompts(report, this.config.redis.allowVolatile);
  }

  /**
   * Calls `listener` whenever one of this process's own workers ends a job (completed or failed);
   * returns the unsubscribe. Nothing is called when the work is done by other processes.
   */
  onJobEnded(listener: () => void): () => void {
    const workers = this.workers?.workers ?? [];
    for (const worker of workers) {
      worker.on('completed', listener);
      worker.on('failed', listener);
    }
    return () => {
      for (const worker of workers) {
        worker.off('completed', listener);
        worker.off('failed', listener);
      }
    };
  }

  /** Runs `fn` first when the runtime closes: what serves others (a dashboard) stops before the workers. */
  onClose(fn: () => Promise<void> | void): void {
    this.cleanups.push(fn);
  }

  /**
   * Runs `fn` last when the runtime closes, once the workers let go of their jobs: what the jobs
   * still use during the grace period (the built-in emulator of `start`) stays up until then.
   */
  onClosed(fn: () => Promise<void> | void): void {
    this.finalCleanups.push(fn);
  }

  /** Closes everything this runtime opened, last opened first; safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const steps: Array<() => Promise<void> | void> = [
      ...this.cleanups.reverse(),
      async () => {
        await this.workers?.close();
        this.workersReleased = true;
      },
      async () => {
        await Promise.all([...this.queues.values()].map((q) => q.close()));
      },
      async () => this.stopGateway?.(),
      async () => {
        if (this.warehousePromise) await (await this.warehousePromise.catch(() => undefined))?.close();
      },
      async () => {
        if (this.connection) await closeRedisConnection(this.connection);
      },
      () => this.redisHandle.release(),
      ...this.finalCleanups.reverse(),
    ];
    for (const step of steps) {
      try {
        await step();
      } catch (err) {
        this.logger.warn({ event: 'close_step_failed', err }, 'a resource did not close cleanly');
      }
    }
  }
}
