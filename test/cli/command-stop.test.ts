/**
 * A one-shot command stopped by a signal: its runtime closes (Redis included) while the command's
 * body may still be reading, and that body's failure is the stop, not an error; the process exits
 * with the signal's code once closed.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadContext, withRuntime } from '../../src/cli/command-context.js';
import { TEST_API_KEY } from '../support/prompts-stack.js';
import { fileTempDir } from '../support/test-env.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a one-shot command stopped by Ctrl-C', () => {
  it('takes its body failing on the closed connections for the stop: no error, exit 130 once closed', async () => {
    const exits: number[] = [];
    vi.spyOn(process, 'exit').mockImplementation(((code?: number) => {
      exits.push(code ?? 0);
    }) as never);
    const env = {
      REDIS_URL: process.env.REDIS_URL!,
      MINTLIFY_API_KEY: TEST_API_KEY,
      MINTPIPE_DATA_DIR: fileTempDir('command-stop'),
      MINTPIPE_QUEUE_PREFIX: `tstop${process.pid}`,
    };
    let settled: string | undefined;
    void withRuntime(loadContext({ oneShot: true }, env), async (runtime) => {
      process.emit('SIGINT');
      // As a progress loop would: a read finds the connection closed by the stop.
      for (;;) {
        await runtime.redis.ping();
        await new Promise((r) => setTimeout(r, 20));
      }
    }).then(
      (value) => (settled = `resolved ${value}`),
      (err: unknown) => (settled = `rejected ${String(err)}`),
    );
    await vi.waitFor(() => expect(exits).toEqual([130]), { timeout: 10_000 });
    await new Promise((r) => setTimeout(r, 300));
    expect(settled).toBeUndefined();
  });
});
