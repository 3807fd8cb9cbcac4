/** What the prompt pipeline needs from the outside, passed down once (the worker wiring builds it). */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { MintpipeConfig } from '../../config/index.js';
import type { MintlifyClient } from '../api/index.js';
import type { Logger } from '../logger.js';
import type { Warehouse } from '../warehouse/index.js';
import type { PromptStatus } from './prompt-status.js';

/** Counters for metrics; every method is optional and must not throw. */
export interface PromptObserver {
  /** A prompt entered `status`. */
  statusChanged?(status: PromptStatus): void;
  /** One GET of an agent job (a pre-send check or a poll). */
  polled?(): void;
  /** One message POST went out (whatever its answer). */
  sent?(): void;
}

export interface PromptDeps {
  client: MintlifyClient;
  warehouse: Warehouse;
  /** Shared connection for prompt state, lanes and the message budget. */
  redis: Redis;
  /** The prompts queue (successor jobs are added to it). */
  queue: Queue;
  config: MintpipeConfig;
  logger: Logger;
  observer?: PromptObserver;
}
