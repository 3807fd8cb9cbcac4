/**
 * Everything a prompt step uses, built once per processor from PromptDeps: the Redis store, the
 * event writer shared by all concurrent steps, and the resolved timing settings.
 */
import type { Queue } from 'bullmq';
import type { MintlifyClient, RetryPolicy } from '../api/index.js';
import type { Logger } from '../logger.js';
import { messageBudget, RequestBudget } from '../queue/request-budget.js';
import type { Warehouse } from '../warehouse/index.js';
import { OutcomeWriter } from './outcome-writer.js';
import type { PromptKind } from './plan-chains.js';
import type { PromptDeps, PromptObserver } from './prompt-deps.js';
import { PollPace } from './poll-pace.js';
import { PromptStore } from './prompt-store.js';
import type { PromptTiming } from './prompt-timing.js';

export { backoffMs, type PromptTiming } from './prompt-timing.js';

/**
 * GETs retry transient failures briefly inside the call; past that, a failed poll is simply a
 * later poll (a delayed job), so no worker slot sleeps long.
 */
export const GET_RETRY: Partial<RetryPolicy> = { attempts: 3, baseDelayMs: 200, maxDelayMs: 2000, maxTotalMs: 5000 };

export interface PromptContext {
  store: PromptStore;
  client: MintlifyClient;
  queue: Queue;
  warehouse: Warehouse;
  writer: OutcomeWriter;
  logger: Logger;
  observer: PromptObserver;
  timing: PromptTiming;
  /** When to poll, learned from the runs this worker saw end. */
  pace: PollPace;
  /**
   * The project's budget for a message or a create: one shared bucket by default (the spec does
   * not say whether creates and messages share one: the safe reading), or one each.
   */
  budget(projectId: string, kind: PromptKind): RequestBudget;
  now(): number;
}

export function createPromptContext(deps: PromptDeps): PromptContext {
  const store = new PromptStore(deps.redis, deps.config.queuePrefix, deps.config.prompts.retentionMs);
  const { pollInitialMs, pollMaxMs, pollSettleMs, deadlineMs, createBudget } = deps.config.prompts;
  const timing: PromptTiming = {
    pollInitialMs,
    pollMaxMs,
    deadlineMs,
    unchangedPollsToSettle: 3,
    settleMs: pollSettleMs,
    maxConsecutiveFailures: 10,
    sendGuardMs: deps.config.api.timeoutMs + 5000,
  };
  const prefix = deps.config.queuePrefix;
  return {
    store,
    client: deps.client,
    queue: deps.queue,
    warehouse: deps.warehouse,
    writer: new OutcomeWriter(deps.warehouse, store, deps.logger),
    logger: deps.logger,
    observer: deps.observer ?? {},
    timing,
    pace: new PollPace(timing),
    budget: (projectId, kind) =>
      kind === 'create' && createBudget === 'separate'
        ? new RequestBudget(deps.redis, { key: `${prefix}:budget:creates:${encodeURIComponent(projectId)}`, rate: deps.config.messageRate, inFlightMs: deps.config.api.timeoutMs })
        : messageBudget(deps.redis, prefix, projectId, deps.config.messageRate, deps.config.api.timeoutMs),
    now: () => Date.now(),
  };
}
