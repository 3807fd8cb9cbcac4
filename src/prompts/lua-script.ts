/**
 * A Lua script run by its SHA (EVALSHA): the atomic steps of the prompt state machine are
 * scripts, so the text is sent once per server, not per call. Each connection loads a script
 * before its first use (on every master of a cluster); a server that lost its scripts since (a
 * restart) answers NOSCRIPT, and the call falls back to EVAL, which loads it again. Loading first
 * matters for a batch's first round: 250 concurrent first calls each got NOSCRIPT and sent the
 * whole text again with EVAL.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export class LuaScript {
  readonly sha: string;
  /** Per connection: the load of this script, once started. */
  private readonly loads = new WeakMap<Redis, Promise<void>>();

  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  /** Loads the script on the connection's server (every master of a cluster), once per connection. */
  load(redis: Redis): Promise<void> {
    let loading = this.loads.get(redis);
    if (!loading) {
      const nodes = 'nodes' in redis && typeof redis.nodes === 'function' ? (redis.nodes as (role: string) => Redis[])('master') : [redis];
      // A cluster that has not fetched its slots yet lists no nodes: load at a later call.
      if (nodes.length === 0) return Promise.resolve();
      loading = Promise.all(nodes.map((node) => node.script('LOAD', this.source))).then(() => undefined);
      // A failed load is tried again by the next call.
      loading.catch(() => this.loads.delete(redis));
      this.loads.set(redis, loading);
    }
    return loading;
  }

  /** Loads the script again (the server lost it since this connection loaded it). */
  reload(redis: Redis): Promise<void> {
    this.loads.delete(redis);
    return this.load(redis);
  }

  async run(redis: Redis, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    await this.load(redis);
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!isNoScript(err)) throw err;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

export function isNoScript(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('NOSCRIPT');
}
