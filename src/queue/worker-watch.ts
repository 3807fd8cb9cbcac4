/**
 * Whether a follower (`--wait` on work handed to running workers) is still following anything: a
 * queue no worker has served for a grace period will not move, and waiting on would hang a cron job
 * forever. Its caller counts live workers (Runtime.workersAlive): connected to the queue (a worker
 * killed outright drops out as its connections close), and published by a process whose heartbeat
 * is on time (a suspended one keeps its connections).
 */

export interface WorkerWatchOptions {
  /** How many workers serve the queue now; undefined when Redis will not say (then it counts as served). */
  countWorkers: () => Promise<number | undefined>;
  /** How long the queue may go unserved before the follower gives up. */
  graceMs: number;
  /** Looks closer together than this reuse the last count (CLIENT LIST is not free). @default 1000 */
  countEveryMs?: number;
  /** The clock, injectable for tests. @default Date.now */
  now?: () => number;
}

export interface WorkerWatch {
  /** Looks once; true when no worker has served the queue for the whole grace period. */
  lapsed(): Promise<boolean>;
}

export function watchWorkers(options: WorkerWatchOptions): WorkerWatch {
  const now = options.now ?? Date.now;
  const countEveryMs = options.countEveryMs ?? 1000;
  let servedAt = now();
  let countedAt = -Infinity;
  return {
    async lapsed() {
      if (now() - countedAt < countEveryMs) return now() - servedAt >= options.graceMs;
      countedAt = now();
      let count: number | undefined;
      try {
        count = await options.countWorkers();
      } catch {
        count = undefined;
      }
      const at = now();
      // Unknown is not "none": a Redis that refuses CLIENT LIST must not end a healthy follow.
      if (count === undefined || count > 0) servedAt = at;
      return at - servedAt >= options.graceMs;
    },
  };
}
