/**
 * Removes every Redis key of a queue prefix: BullMQ's (`{p}:export:…`), the prompt pipeline's
 * (`{p:prompts}:…`), the installation's (`p:installation:…`), on every master of a cluster.
 */
import type { Redis } from 'ioredis';
import type { RedisTarget } from '../../config/redis-url.js';
import { createRedisConnection, isCluster, isConnectionError } from '../../src/queue/redis-connection.js';

/** The pattern of the prefix's keys: a random prefix appears in no other stack's keys. */
export const prefixPattern = (prefix: string): string => `*${prefix}*`;

export async function sweepPrefix(target: RedisTarget | string, prefix: string): Promise<void> {
  const redis = createRedisConnection(target, { connectionName: 'mintpipe-test-sweep', reconnect: false, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  try {
    const nodes: Redis[] = isCluster(redis) ? (redis as unknown as { nodes(role: 'master'): Redis[] }).nodes('master') : [redis];
    for (const node of nodes) await sweepNode(node, prefixPattern(prefix));
  } catch (err) {
    // A Redis the test stopped (or restarted empty) keeps nothing of the prefix.
    if (!isConnectionError(err)) throw err;
  } finally {
    redis.disconnect();
  }
}

async function sweepNode(node: Redis, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    // One key a command: keys of several hash slots may not go in one DEL on a cluster node.
    if (keys.length > 0) await Promise.all(keys.map((key) => node.del(key)));
  } while (cursor !== '0');
}
