/**
 * BullMQ workers for mintpipe's queues, wired to their processors in jobs/. Closing waits for
 * in-flight jobs (up to the grace period), then force-closes: a job cut off is released to the
 * queue as stalled and resumed from its checkpoint by the next worker.
 */
import { Worker, type Job, type Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { MintpipeConfig } from '../config/index.js';
import { createPlanNightlyProcessor, PLAN_NIGHTLY_JOB } from './plan-nightly.js';
import { createWindowProcessor } from './export-window.js';
import { createTriageNightProcessor, TRIAGE_NIGHT_JOB } from './triage-night.js';
import type { MintlifyClient } from '../src/api/index.js';
import type { ExportObserver } from '../src/export/export-window.js';
import type { Logger } from '../src/logger.js';
import type { PromptObserver } from '../src/prompts/index.js';
import type { Warehouse } from '../src/warehouse/index.js';
import { queueKeyPrefix } from '../src/queue/queue-names.js';
import { QUEUE_NAMES, type QueueName } from '../src/queue/queues.js';
import { closeRedisConnection, createRedisConnection, isConnectionError } from '../src/queue/redis-connection.js';
import { MAX_STALLED_COUNT } from '../src/queue/crash-budget.js';
import type { RedisTarget } from '../config/redis-url.js';
import { analyticsBudget } from '../src/queue/request-budget.js';
import type { JobUpstream } from '../src/queue/job-upstream.js';

export interface WorkerDeps {
  names: QueueName[];
  config: MintpipeConfig;
  logger: Logger;
  /** Where the workers' own connections go (the private server's socket, or REDIS_URL's target). */
  redisTarget: RedisTarget;
  redis: Redis;
  queue: (name: QueueName) => Queue;
  warehouse: Warehouse;
  client: MintlifyClient;
  exportObserver?: ExportObserver;
  promptObserver?: PromptObserver;
  /** Where this process sends: jobs enqueued for another upstream are not run (src/queue/job-upstream.ts). */
  upstream?: JobUpstream;
}

export interface WorkerSet {
  workers: Worker[];
  close(): Promise<void>;
}

export async function startWorkers(deps: WorkerDeps): Promise<WorkerSet> {
  const { config, logger } = deps;
  const workers: Worker[] = [];
  const connections: Redis[] = [];
  /** Writes the processors' runs left behind (the ledger's group commit): waited for once the workers stopped. */
  const writesBehind: Array<() => Promise<void>> = [];
  // Jobs this process's processors are running right now: an idle set closes without pause().
  let running = 0;
  const counted =
    <A extends unknown[], R>(processor: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      running += 1;
      try {
        return await processor(...args);
      } finally {
        running -= 1;
      }
    };
  const common = (name: string) => {
    const connection = createRedisConnection(deps.redisTarget, `mintpipe-worker-${name}`, logger);
    connections.push(connection);
    return {
      connection,
      prefix: queueKeyPrefix(config.queuePrefix),
      lockDuration: config.worker.lockDurationMs,
      stalledInterval: config.worker.stalledIntervalMs,
      // One budget with the jobs' attempts: see src/queue/crash-budget.ts.
      maxStalledCount: MAX_STALLED_COUNT,
    };
  };

  if (deps.names.includes(QUEUE_NAMES.export)) {
    const exportJob = exportProcessor(deps);
    workers.push(
      new Worker(
        QUEUE_NAMES.export,
        counted(async (job: Job, token?: string) => exportJob(job, token)),
        { ...common('export'), concurrency: config.export.concurrency },
      ),
    );
  }
  if (deps.names.includes(QUEUE_NAMES.prompts)) {
    // Loaded only when this process works the prompts queue.
    const { createPromptProcessor } = await import('./prompt.js');
    // Prompt steps are many short concurrent Redis calls: their own connection pipelines them.
    const promptRedis = createRedisConnection(deps.redisTarget, { connectionName: 'mintpipe-prompts', logger, autoPipelining: true });
    connections.push(promptRedis);
    const processPrompt = createPromptProcessor({
      client: deps.client,
      warehouse: deps.warehouse,
      redis: promptRedis,
      queue: deps.queue(QUEUE_NAMES.prompts),
      config,
      logger,
      observer: deps.promptObserver,
      upstream: deps.upstream,
    });
    writesBehind.push(processPrompt.idle);
    workers.push(new Worker(QUEUE_NAMES.prompts, counted(processPrompt), { ...common('prompts'), concurrency: config.prompts.concurrency }));
  }
  for (const worker of workers) {
    // A worker error (lost connection, a processor bug) is logged; failed jobs stay visible in the queue.
    // A lost connection is logged once by the connection itself (redis_connection_lost), not per retry.
    worker.on('error', (err) => {
      if (!isConnectionError(err)) logger.error({ event: 'worker_error', queue: worker.name, err }, 'worker error');
    });
    worker.on('failed', (job, err) =>
      logger.warn({ event: 'job_failed', queue: worker.name, jobId: job?.id, attemptsMade: job?.attemptsMade, err: { message: err.message } }, 'job failed'),
    );
  }
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  logger.info({ event: 'workers_started', queues: deps.names }, 'workers started');

  return {
    workers,
    close: () => closeWorkers(workers, connections, { idle: () => running === 0, writesBehind, graceMs: config.shutdownGraceMs, logger }),
  };
}

/** The export queue's processor: a window, the nightly plan or the triage night, by job name. */
function exportProcessor(deps: WorkerDeps): (job: Job, token?: string) => Promise<unknown> {
  const { config, logger } = deps;
  const exportQueue = deps.queue(QUEUE_NAMES.export);
  const processWindow = createWindowProcessor({
    client: deps.client,
    warehouse: deps.warehouse,
    budget: analyticsBudget(deps.redis, config.queuePrefix, config.analyticsRate, config.api.timeoutMs),
    logger,
    settings: config.export,
    observer: deps.exportObserver,
  }, deps.upstream);
  const planNightly = createPlanNightlyProcessor({ queue: exportQueue, settings: config.export, logger, warehouse: deps.warehouse, triage: config.triage });
  const triageNight = createTriageNightProcessor({
    warehouse: deps.warehouse,
    redis: deps.redis,
    queue: deps.queue(QUEUE_NAMES.prompts),
    prefix: config.queuePrefix,
    maxJobs: config.triage.maxJobs,
    recipesDir: config.triage.recipesDir,
    secrets: [config.api.key],
    logger,
  });
  return (job: Job, token?: string) => (job.name === PLAN_NIGHTLY_JOB ? planNightly(job) : job.name === TRIAGE_NIGHT_JOB ? triageNight(job, token) : processWindow(job, token));
}

/**
 * Closes the workers within the grace period, then force-closes: a job cut off is released to the
 * queue as stalled and resumed from its checkpoint by the next worker.
 */
async function closeWorkers(
  workers: Worker[],
  connections: Redis[],
  options: { idle: () => boolean; writesBehind: ReadonlyArray<() => Promise<void>>; graceMs: number; logger: Logger },
): Promise<void> {
  const { logger } = options;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), options.graceMs);
  });
  // While jobs run: stop taking jobs, and give the running ones the grace period (pause()
  // resolves once they are done). Not close() yet: BullMQ answers a later close(true) with that
  // first close's promise, which waits for every job. Idle: straight to close(), because pause()
  // also reconnects the blocking connection that close() then drops (~0.1 s of every one-shot).
  const drained = options.idle() ? Promise.resolve() : Promise.all(workers.map((w) => w.pause()));
  const result = await Promise.race([drained.then(() => 'drained' as const), timeout]);
  if (result === 'timeout') {
    logger.warn({ event: 'workers_force_close', graceMs: options.graceMs }, 'grace period over: releasing in-flight jobs');
  }
  // Forced: stops renewing the locks of jobs still running, so another worker resumes them. A
  // job handed over while an idle set closed is waited for within what is left of the grace
  // period; past it, dropping the connections stops its lock renewal the same way.
  const closing = Promise.all(workers.map((w) => w.close(result === 'timeout'))).then(() => 'closed' as const);
  const closed = result === 'timeout' ? await closing : await Promise.race([closing, timeout]);
  // A write a run left behind (the ledger's group commit) ends before the warehouse closes: the
  // embedded engine's close stops the queries still running, which would lose those state changes.
  const written = closed === 'timeout' ? 'timeout' : await Promise.race([Promise.all(options.writesBehind.map((w) => w())).then(() => 'written' as const), timeout]);
  clearTimeout(timer);
  if (closed === 'timeout' || written === 'timeout') {
    logger.warn({ event: 'workers_force_close', graceMs: options.graceMs }, 'grace period over: releasing in-flight jobs');
    for (const c of connections) c.disconnect();
    return;
  }
  await Promise.all(connections.map(closeRedisConnection));
}
