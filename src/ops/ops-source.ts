/**
 * What the operations surface reads: the queues, the shared Redis connection, the warehouse, and
 * the few settings that say where the running installation publishes itself and serves its
 * warehouse. `Runtime` (src/cli/runtime.ts) satisfies it; naming only these keeps the dashboard and
 * metrics from reaching for the API client or the API key, the things that hold a secret.
 */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { SettingsSource } from '../queue/installation-info.js';
import type { QueueName } from '../queue/queues.js';
import type { Warehouse } from '../warehouse/index.js';
import type { ReaderSettings } from './warehouse-reader.js';

/** The settings the operations surface sees: where things are, and what this process would run with. */
export type OpsSettings = ReaderSettings & SettingsSource & { queuePrefix: string };

export interface OpsSource {
  queue(name: QueueName): Queue;
  readonly redis: Redis;
  warehouse(): Promise<Warehouse>;
  readonly config: OpsSettings;
}
