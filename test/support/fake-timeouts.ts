/**
 * Fake timeouts for tests of waits (retry delays, timeouts) against a real loopback server: time
 * moves only when the test says so, so a test proves "not before N ms, then at N ms" without
 * measuring the wall clock. Sockets stay real; the scripted server's own delays are timeouts too,
 * so scripts used under fake time should not delay.
 */
import { vi } from 'vitest';

const realSetTimeout = globalThis.setTimeout;

/** Waits on the real clock (fake timeouts do not move it): lets loopback I/O happen. */
export function realPause(ms: number): Promise<void> {
  return new Promise((resolve) => realSetTimeout(resolve, ms));
}

/** Polls `probe` on the real clock until it is true (vi.waitFor would advance fake time). */
export async function realUntil(what: string, probe: () => boolean, timeoutMs = 10_000): Promise<void> {
  for (let waited = 0; !probe(); waited += 5) {
    if (waited > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await realPause(5);
  }
}

/**
 * Runs `body` with setTimeout/clearTimeout (and Date, from `now`) faked, restoring real timers after.
 * @default now the current time
 */
export async function withFakeTimeouts<T>(body: () => Promise<T>, now?: Date): Promise<T> {
  vi.useFakeTimers({ toFake: now ? ['setTimeout', 'clearTimeout', 'Date'] : ['setTimeout', 'clearTimeout'], now });
  try {
    return await body();
  } finally {
    vi.useRealTimers();
  }
}

/**
 * Advances fake time by `ms`, then gives loopback I/O a moment on the real clock, so that a request
 * a timer released would have reached the server.
 */
export async function advance(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
  await realPause(30);
}
