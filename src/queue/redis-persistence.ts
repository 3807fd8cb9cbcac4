/**
 * Whether a Redis keeps what BullMQ writes: append-only persistence (AOF) so a restart does not
 * forget queued and in-flight jobs, and `maxmemory-policy noeviction` so a full Redis refuses
 * writes instead of dropping keys. Read with `INFO persistence` and `INFO memory`, because managed
 * Redis plans often block `CONFIG`; on a cluster, from every master.
 *
 * Anything less is a loud warning at start and in `status`, and the prompts queue refuses to run
 * on it (a forgotten `sending` mark sends a prompt twice) unless MINTPIPE_ALLOW_VOLATILE_REDIS=1.
 */
import { Cluster, type Redis } from 'ioredis';
import { MintpipeError } from '../errors.js';

export interface RedisNodePersistence {
  /** `host:port` of the node as the client knows it, or `unix:<path>` for a socket. */
  node: string;
  /** `aof_enabled:1`. */
  aof: boolean;
  /** `maxmemory_policy`, or `unknown` when INFO does not say. */
  evictionPolicy: string;
}

export interface RedisPersistenceReport {
  /** AOF and noeviction on every master. */
  durable: boolean;
  nodes: RedisNodePersistence[];
  /** One phrase per shortfall, naming the node (e.g. `127.0.0.1:6379: appendonly no`). */
  problems: string[];
}

/** Redis would lose or evict jobs, and the prompts queue was asked to run on it anyway. */
export class VolatileRedisError extends MintpipeError {
  override name = 'VolatileRedisError';
  constructor(readonly report: RedisPersistenceReport) {
    super(
      `refusing to run the prompts queue on a Redis that can lose jobs (${report.problems.join('; ')}): a lost "sending" mark could send a prompt twice. ` +
        'Turn on appendonly yes with maxmemory-policy noeviction, or set MINTPIPE_ALLOW_VOLATILE_REDIS=1 to run anyway',
    );
  }
}

/** Reads persistence and eviction from every master (one server: that server). */
export async function checkRedisPersistence(redis: Redis): Promise<RedisPersistenceReport> {
  // A cluster knows its masters once it has loaded the slot map: the first command waits for that.
  await redis.ping();
  const nodes: Array<{ name: string; client: Redis }> =
    (redis as unknown) instanceof Cluster
      ? (redis as unknown as Cluster).nodes('master').map((client) => ({ name: `${client.options.host}:${client.options.port}`, client }))
      : [{ name: redis.options.path ? `unix:${redis.options.path}` : `${redis.options.host ?? '127.0.0.1'}:${redis.options.port ?? 6379}`, client: redis }];
  const report: RedisPersistenceReport = { durable: true, nodes: [], problems: [] };
  for (const { name, client } of nodes) {
    const persistence = parseInfo(await client.info('persistence'));
    const memory = parseInfo(await client.info('memory'));
    const node: RedisNodePersistence = { node: name, aof: persistence.get('aof_enabled') === '1', evictionPolicy: memory.get('maxmemory_policy') ?? 'unknown' };
    report.nodes.push(node);
    if (!node.aof) report.problems.push(`${name}: appendonly no`);
    if (node.evictionPolicy !== 'noeviction') report.problems.push(`${name}: maxmemory-policy ${node.evictionPolicy}`);
  }
  if (report.nodes.length === 0) report.problems.push('no master answered');
  report.durable = report.problems.length === 0;
  return report;
}

/** One line for a log, `status` or the dashboard. */
export function describePersistence(report: RedisPersistenceReport): string {
  if (report.durable) return `durable (appendonly, noeviction on ${report.nodes.length === 1 ? 'the server' : `all ${report.nodes.length} masters`})`;
  return `NOT DURABLE: ${report.problems.join('; ')} — a restart or a full memory loses queued jobs; use appendonly yes and maxmemory-policy noeviction`;
}

/** Throws VolatileRedisError unless the report is durable or volatile Redis was explicitly allowed. */
export function assertDurableForPrompts(report: RedisPersistenceReport, allowVolatile: boolean): void {
  if (!report.durable && !allowVolatile) throw new VolatileRedisError(report);
}

function parseInfo(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) fields.set(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return fields;
}
