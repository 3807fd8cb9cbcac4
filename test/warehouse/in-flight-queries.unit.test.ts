import { describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../src/logger.js';
import { InFlightQueries } from '../../src/warehouse/in-flight-queries.js';
import { rejection } from '../support/wait.js';

class Refused extends Error {}

/** A query that ends when the test says so. */
function pending(): { promise: Promise<string>; end: () => void } {
  let end!: () => void;
  const promise = new Promise<string>((resolve) => (end = () => resolve('done')));
  return { promise, end };
}

function warnings() {
  const warn = vi.fn();
  return { logger: { warn } as unknown as Logger, warn };
}

describe('the queries an engine has in flight', () => {
  it('close() waits for a query that ends within the settle time, and stops nothing', async () => {
    vi.useFakeTimers();
    try {
      const queries = new InFlightQueries(() => new Refused());
      const query = pending();
      const result = queries.run('m1', () => query.promise);
      const stop = vi.fn(async () => {});
      const { logger, warn } = warnings();
      let done = false;
      const closed = queries.close(stop, { settleMs: 1_000, stopMs: 60_000 }, logger, 'here').then(() => (done = true));
      await vi.advanceTimersByTimeAsync(999);
      expect(done).toBe(false);
      query.end();
      await closed;
      await expect(result).resolves.toBe('done');
      expect(stop).not.toHaveBeenCalled();
      expect(warn).not.toHaveBeenCalled();
      expect(queries.size).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('close() stops the queries still running after the settle time, by their markers, and warns naming how many', async () => {
    const queries = new InFlightQueries(() => new Refused());
    const first = pending();
    const second = pending();
    void queries.run('m1', () => first.promise);
    void queries.run('m1', () => second.promise);
    const stop = vi.fn(async () => {
      first.end();
      second.end();
    });
    const { logger, warn } = warnings();
    await queries.close(stop, { settleMs: 20, stopMs: 60_000 }, logger, 'here');
    expect(stop).toHaveBeenCalledWith(['m1']);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatchObject({ event: 'warehouse.close_in_flight', location: 'here', running: 2, left: 0 });
  });

  it('close() never waits past the settle and stop times for a query that does not stop, and lets go of it', async () => {
    const queries = new InFlightQueries(() => new Refused());
    const abandon = vi.fn();
    queries.count('m2', new Promise(() => {}), abandon);
    const stop = vi.fn(async () => {});
    const { logger, warn } = warnings();
    const startedAt = Date.now();
    await queries.close(stop, { settleMs: 20, stopMs: 250 }, logger, 'here');
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    // Sent again while the query runs on: one counted before it reached the engine is caught later.
    expect(stop.mock.calls.length).toBeGreaterThan(1);
    expect(warn.mock.calls[0]![0]).toMatchObject({ running: 1, left: 1 });
    expect(abandon).toHaveBeenCalledTimes(1);
  });

  it('refuses a query once close() has begun, without running it', async () => {
    const queries = new InFlightQueries(() => new Refused('closed'));
    const query = pending();
    void queries.run('m1', () => query.promise);
    const closed = queries.close(async () => query.end(), { settleMs: 60_000, stopMs: 60_000 }, undefined, 'here');
    const late = vi.fn(async () => 'ran');
    expect(await rejection(queries.run('m1', late))).toBeInstanceOf(Refused);
    expect(late).not.toHaveBeenCalled();
    expect(() => queries.assertOpen()).toThrow(Refused);
    query.end();
    await closed;
  });
});
