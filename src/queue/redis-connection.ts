/** ioredis connections as BullMQ wants them. */
import { Redis } from 'ioredis';

/**
 * A connection for BullMQ queues and workers: `maxRetriesPerRequest: null` is required by
 * BullMQ's blocking commands, and reconnects back off up to 2 s.
 */
export function createRedisConnection(url: string, connectionName?: string): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    connectionName,
    retryStrategy: (times) => Math.min(times * 100, 2000),
  });
}
