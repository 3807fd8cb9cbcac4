/** How to open mintpipe's queues (names in queue-names.ts). */
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';

export { ALL_QUEUES, parseQueueNames, QUEUE_NAMES, type QueueName } from './queue-names.js';
import type { QueueName } from './queue-names.js';

export function openQueue(name: QueueName, connection: Redis, prefix: string): Queue {
  return new Queue(name, { connection, prefix });
}

export function openQueueEvents(name: QueueName, connection: Redis, prefix: string): QueueEvents {
  return new QueueEvents(name, { connection, prefix });
}
