/** How to open mintpipe's queues (names in queue-names.ts). */
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';

export { ALL_QUEUES, parseQueueNames, QUEUE_NAMES, type QueueName } from './queue-names.js';
import type { QueueName } from './queue-names.js';

export function openQueue(name: QueueName, connection: Redis, prefix: string): Queue {
  // Every job added here (also by a scheduler or the dashboard) keeps no stack trace in Redis: its
  // failedReason is the message; frames would show local paths on the dashboard.
  return new Queue(name, { connection, prefix, defaultJobOptions: { stackTraceLimit: 0 } });
}

export function openQueueEvents(name: QueueName, connection: Redis, prefix: string): QueueEvents {
  return new QueueEvents(name, { connection, prefix });
}
