/**
 * `/healthz`: is Redis answering, and is the warehouse? Each probe is bounded, so a dead server
 * turns into a 503 naming it rather than a request that never ends.
 */
import { redactSecrets } from '../logger.js';
import type { OpsSource } from './ops-source.js';
import { openReader } from './warehouse-reader.js';
import { withTimeout } from './with-timeout.js';

export type ProbeState = 'ok' | 'failed';

export interface HealthReport {
  healthy: boolean;
  body: {
    redis: ProbeState;
    warehouse: ProbeState;
    /** One line per failed probe, e.g. `{ warehouse: "…did not answer within 3000 ms" }`. */
    errors?: Partial<Record<'redis' | 'warehouse', string>>;
  };
}

export interface HealthOptions {
  /** Longest wait for each probe. @default 3000 */
  timeoutMs?: number;
}

async function probe(run: () => Promise<unknown>, what: string, timeoutMs: number): Promise<string | undefined> {
  try {
    await withTimeout(run(), timeoutMs, what);
    return undefined;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return redactSecrets(message.split('\n')[0] ?? message);
  }
}

export async function checkHealth(source: OpsSource, options: HealthOptions = {}): Promise<HealthReport> {
  const timeoutMs = options.timeoutMs ?? 3000;
  const [redis, warehouse] = await Promise.all([
    probe(() => source.redis.ping(), 'redis', timeoutMs),
    probe(async () => {
      // Readable counts: its own warehouse, or through the process holding the embedded engine.
      const wh = await openReader(source, source.config);
      await wh.select('SELECT 1 AS ok');
    }, 'warehouse', timeoutMs),
  ]);
  const errors: NonNullable<HealthReport['body']['errors']> = {};
  if (redis) errors.redis = redis;
  if (warehouse) errors.warehouse = warehouse;
  const healthy = !redis && !warehouse;
  return {
    healthy,
    body: {
      redis: redis ? 'failed' : 'ok',
      warehouse: warehouse ? 'failed' : 'ok',
      ...(healthy ? {} : { errors }),
    },
  };
}
