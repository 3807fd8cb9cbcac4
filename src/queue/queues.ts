/** How to open mintpipe's queues (names in queue-names.ts). */
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { isConnectionError } from './redis-connection.js';

export { ALL_QUEUES, parseQueueNames, QUEUE_NAMES, queueKeyPrefix, type QueueName } from './queue-names.js';
import type { QueueName } from './queue-names.js';

/**
 * `prefix` is BullMQ's key prefix: the runtime passes `queueKeyPrefix(MINTPIPE_QUEUE_PREFIX)`.
 * Without an error listener BullMQ prints every failed reconnect as a stack trace; a lost
 * connection is logged once by the connection (redis-connection.ts), other errors here.
 */
export function openQueue(name: QueueName, connection: Redis, prefix: string, logger?: Logger): Queue {
  // Every job added here (also by a scheduler or the dashboard) keeps no stack trace in Redis: its
  // failedReason is the message; frames would show local paths on the dashboard.
  const queue = new Queue(name, { connection, prefix, defaultJobOptions: { stackTraceLimit: 0 } });
  queue.on('error', (err) => reportError(logger, name, err));
  return queue;
}

export function openQueueEvents(name: QueueName, connection: Redis, prefix: string, logger?: Logger): QueueEvents {
  const events = new QueueEvents(name, { connection, prefix });
  events.on('error', (err) => reportError(logger, name, err));
  return events;
}

function reportError(logger: Logger | undefined, queue: string, err: Error): void {
  if (!isConnectionError(err)) logger?.warn({ event: 'queue_error', queue, err: { message: err.message } }, 'queue error');
}
