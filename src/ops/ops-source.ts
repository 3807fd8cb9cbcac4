/**
 * What the operations surface reads: the queues, the shared Redis connection and the warehouse.
 * `Runtime` (src/cli/runtime.ts) satisfies it; naming only these keeps the dashboard and metrics
 * from reaching for the API client, the one thing that holds a secret.
 */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { QueueName } from '../queue/queues.js';
import type { Warehouse } from '../warehouse/index.js';

export interface OpsSource {
  queue(name: QueueName): Queue;
  readonly redis: Redis;
  warehouse(): Promise<Warehouse>;
}
