import { describe, expect, it } from 'vitest';
import { watchWorkers } from '../../src/queue/worker-watch.js';

/** A watch on a queue whose worker count the test sets, on a clock the test moves. */
function watched(graceMs: number) {
  let clock = 0;
  let workers: number | undefined = 1;
  const watch = watchWorkers({ countWorkers: async () => workers, graceMs, countEveryMs: 0, now: () => clock });
  return {
    watch,
    at(ms: number) {
      clock = ms;
    },
    setWorkers(n: number | undefined) {
      workers = n;
    },
  };
}

describe('watchWorkers', () => {
  it('lapses once the grace period has passed since a worker was last seen serving the queue', async () => {
    const t = watched(3000);
    expect(await t.watch.lapsed()).toBe(false);
    t.setWorkers(0);
    t.at(1000);
    expect(await t.watch.lapsed()).toBe(false);
    t.at(2999);
    expect(await t.watch.lapsed()).toBe(false);
    t.at(3000);
    expect(await t.watch.lapsed()).toBe(true);
  });

  it('starts the grace period again when a worker comes back', async () => {
    const t = watched(3000);
    t.setWorkers(0);
    t.at(2500);
    await t.watch.lapsed();
    t.setWorkers(1);
    t.at(2600);
    expect(await t.watch.lapsed()).toBe(false);
    t.setWorkers(0);
    t.at(5000);
    expect(await t.watch.lapsed()).toBe(false);
  });

  it('never lapses while Redis will not say how many workers there are', async () => {
    const t = watched(3000);
    t.setWorkers(undefined);
    t.at(60_000);
    expect(await t.watch.lapsed()).toBe(false);
  });
});
