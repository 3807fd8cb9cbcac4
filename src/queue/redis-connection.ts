/**
 * ioredis connections as BullMQ wants them, to one server or to a Redis Cluster (REDIS_URL forms
 * in config/redis-url.ts). Every connection made here has an error listener: without one, ioredis prints a
 * stack trace for every failed reconnect attempt. Instead a lost and a regained connection are one
 * structured log line each.
 */
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '../logger.js';
import { describeRedisTarget, parseRedisUrl, type RedisTarget } from '../../config/redis-url.js';

/** Node errors that mean "the connection is gone", as opposed to a command's own failure. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNABORTED']);

export interface RedisConnectionOptions {
  /** Shown by CLIENT LIST and in log lines. */
  connectionName?: string;
  /** Where lost and regained connections are logged. @default none (the error listener stays) */
  logger?: Logger;
  /** ioredis `maxRetriesPerRequest`; BullMQ's blocking commands need null. @default null */
  maxRetriesPerRequest?: number | null;
  /** Reconnect forever (backing off up to 2 s), or give up at the first failure (a probe). @default true */
  reconnect?: boolean;
  /** Connect on the first command rather than at once. @default false */
  lazyConnect?: boolean;
  /**
   * Commands issued in the same tick go out in one write (ioredis `enableAutoPipelining`): many
   * concurrent short steps cost far fewer socket writes. Not for BullMQ's blocking connections.
   * @default false
   */
  autoPipelining?: boolean;
}

/** The target of a URL that config already checked (throws for one it did not), or a target as given. */
export function redisTarget(url: string | RedisTarget): RedisTarget {
  if (typeof url !== 'string') return url;
  const target = parseRedisUrl(url);
  if ('problem' in target) throw new TypeError(`REDIS_URL: ${target.problem}`);
  return target;
}

/**
 * A connection for BullMQ queues and workers and plain commands. A cluster connection is a
 * `Cluster`, typed as `Redis` for the callers: it has the same command API, and BullMQ and the
 * budget scripts work on it once their keys share a hash slot (queue-names.ts, request-budget.ts).
 */
export function createRedisConnection(url: string | RedisTarget, connectionName?: string, logger?: Logger): Redis;
export function createRedisConnection(url: string | RedisTarget, options: RedisConnectionOptions): Redis;
export function createRedisConnection(url: string | RedisTarget, nameOrOptions?: string | RedisConnectionOptions, logger?: Logger): Redis {
  const options: RedisConnectionOptions = typeof nameOrOptions === 'object' ? nameOrOptions : { connectionName: nameOrOptions, logger };
  const target = redisTarget(url);
  const reconnect = options.reconnect ?? true;
  const retryStrategy = reconnect ? (times: number) => Math.min(times * 100, 2000) : () => null;
  const nodeOptions: RedisOptions = {
    maxRetriesPerRequest: options.maxRetriesPerRequest === undefined ? null : options.maxRetriesPerRequest,
    enableReadyCheck: true,
    connectionName: options.connectionName,
    lazyConnect: options.lazyConnect ?? false,
    enableAutoPipelining: options.autoPipelining ?? false,
    ...(target.username ? { username: target.username } : {}),
    ...(target.password ? { password: target.password } : {}),
    ...(target.tls ? { tls: {} } : {}),
  };
  let client: Redis;
  if (target.cluster) {
    const cluster = new Cluster(target.nodes, {
      redisOptions: nodeOptions,
      enableReadyCheck: true,
      lazyConnect: options.lazyConnect ?? false,
      enableAutoPipelining: options.autoPipelining ?? false,
      clusterRetryStrategy: retryStrategy,
      // A probe fails at once; a long-lived connection keeps commands until the cluster is back.
      enableOfflineQueue: reconnect,
    });
    // Errors of single nodes surface as the cluster's own; the listener keeps them off stderr.
    cluster.on('node error', () => {});
    client = cluster as unknown as Redis;
  } else {
    const where = target.socket !== undefined ? { path: target.socket } : { host: target.nodes[0]!.host, port: target.nodes[0]!.port };
    client = new Redis({ ...nodeOptions, ...where, db: target.db, retryStrategy });
  }
  watchConnection(client, describeRedisTarget(target), options.connectionName, options.logger);
  return client;
}

/** True for a Redis Cluster connection made by createRedisConnection. */
export function isCluster(client: Redis): boolean {
  return (client as unknown) instanceof Cluster;
}

/** True when an error means the connection to Redis is gone (not that a command failed). */
export function isConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as NodeJS.ErrnoException).code;
  if (code !== undefined && CONNECTION_CODES.has(code)) return true;
  // ioredis rejects commands on a closed connection with this message and no code; a connect that
  // failed says so first (also `connect ENOENT <path>`: a Unix socket that is not there).
  return err.message === 'Connection is closed.' || /^connect E[A-Z]+ /.test(err.message);
}

/** A short reason for a log line: the error's code, else its first line. */
export function connectionErrorReason(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as NodeJS.ErrnoException).code;
  return code ?? err.message.split('\n')[0] ?? err.name;
}

/** Per Redis target, the connections of this process that are down right now. */
const downConnections = new Map<string, Set<object>>();

/**
 * Attaches the error listener and logs one line per change of state of a Redis target, however
 * many connections this process has to it: `redis_connection_lost` when the first of them fails
 * (or never comes up), `redis_connection_restored` when the last of them is ready again. Retries
 * in between log nothing.
 */
function watchConnection(client: Redis, where: string, name: string | undefined, logger: Logger | undefined): void {
  const id = {};
  let up = false;
  const down = () => {
    let set = downConnections.get(where);
    if (!set) downConnections.set(where, (set = new Set()));
    return set;
  };
  const lost = (reason: string) => {
    const set = down();
    if (set.has(id)) return;
    set.add(id);
    up = false;
    if (set.size === 1) {
      downSince.set(where, Date.now());
      logger?.warn({ event: 'redis_connection_lost', connection: name, redis: where, reason }, 'lost the connection to Redis; reconnecting');
    }
  };
  client.on('error', (err: unknown) => lost(connectionErrorReason(err)));
  // A server that closed the connection (restart, failover) before any error: ioredis emits this
  // only when it will reconnect, never after our own quit().
  client.on('reconnecting', () => {
    if (up) lost('connection closed');
  });
  client.on('ready', () => {
    up = true;
    const set = down();
    if (!set.delete(id) || set.size > 0) return;
    logger?.info({ event: 'redis_connection_restored', connection: name, redis: where, downMs: Date.now() - (downSince.get(where) ?? Date.now()) }, 'connection to Redis restored');
  });
  // A connection closed for good (quit, or given up) no longer counts as down.
  client.on('end', () => down().delete(id));
}

const downSince = new Map<string, number>();

/**
 * Closes a connection for good: QUIT, so commands already sent get their replies, then the socket
 * is dropped at once rather than when the server gets round to closing it (a one-shot command
 * otherwise waits on that socket before it can exit). A connection that cannot QUIT is dropped.
 */
export async function closeRedisConnection(connection: Redis): Promise<void> {
  try {
    await connection.quit();
  } catch {
    /* already closed, or down: nothing to wait for */
  } finally {
    connection.disconnect();
  }
}
