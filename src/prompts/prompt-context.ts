/**
 * Everything a prompt step uses, built once per processor from PromptDeps: the Redis store, the
 * event writer shared by all concurrent steps, and the resolved timing settings.
 */
import type { Queue } from 'bullmq';
import type { MintlifyClient, RetryPolicy } from '../api/index.js';
import type { Logger } from '../logger.js';
import { messageBudget, type RequestBudget } from '../queue/request-budget.js';
import type { Warehouse } from '../warehouse/index.js';
import { OutcomeWriter } from './outcome-writer.js';
import type { PromptDeps, PromptObserver } from './prompt-deps.js';
import { PromptStore } from './prompt-store.js';

export interface PromptTiming {
  /** First poll after a send, and first re-check of a busy agent job. */
  pollInitialMs: number;
  /** Ceiling of the doubling poll interval. */
  pollMaxMs: number;
  /** After the send (or after first finding the job busy), the end of waiting. */
  deadlineMs: number;
  /**
   * Polls that must show the same terminal status as before the send (never `active`, link
   * unchanged) before it is taken as this run's outcome. The server processes a message
   * asynchronously: right after the POST the job may still show its previous outcome. @default 3
   */
  unchangedPollsToSettle: number;
  /** Failed checks or unconnected sends in a row after which a prompt is rejected unsent. @default 10 */
  maxConsecutiveFailures: number;
}

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
  budget(projectId: string): RequestBudget;
  now(): number;
}

export function createPromptContext(deps: PromptDeps): PromptContext {
  const store = new PromptStore(deps.redis, deps.config.queuePrefix, deps.config.prompts.retentionMs);
  const { pollInitialMs, pollMaxMs, deadlineMs } = deps.config.prompts;
  return {
    store,
    client: deps.client,
    queue: deps.queue,
    warehouse: deps.warehouse,
    writer: new OutcomeWriter(deps.warehouse, store, deps.logger),
    logger: deps.logger,
    observer: deps.observer ?? {},
    timing: { pollInitialMs, pollMaxMs, deadlineMs, unchangedPollsToSettle: 3, maxConsecutiveFailures: 10 },
    budget: (projectId) => messageBudget(deps.redis, deps.config.queuePrefix, projectId, deps.config.messageRate),
    now: () => Date.now(),
  };
}

/** Delay before the (n+1)-th check: pollInitialMs doubling up to pollMaxMs. */
export function backoffMs(timing: PromptTiming, n: number): number {
  return Math.min(timing.pollMaxMs, timing.pollInitialMs * 2 ** Math.min(n, 30));
}
