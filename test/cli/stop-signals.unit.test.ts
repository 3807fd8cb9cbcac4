import { describe, expect, it, vi } from 'vitest';
import { runUntilSignal, STOP_AFTER_GRACE_MS } from '../../src/cli/run-until-signal.js';
import type { Runtime } from '../../src/cli/runtime.js';
import { nextStopSignal, onStopSignal, signalExitCode, STOP_SIGNALS } from '../../src/cli/stop-signals.js';

describe('stop signals', () => {
  it('are Ctrl-C, a service manager and a closed terminal, each ending with the code a shell reports', () => {
    expect(STOP_SIGNALS.map((signal) => [signal, signalExitCode(signal)])).toEqual([
      ['SIGINT', 130],
      ['SIGTERM', 143],
      ['SIGHUP', 129],
    ]);
  });

  it('with once, call the handler for the first signal only, and stop listening when turned off', () => {
    const seen: string[] = [];
    const before = process.listenerCount('SIGHUP');
    const off = onStopSignal((signal) => seen.push(signal), { once: true });
    process.emit('SIGHUP', 'SIGHUP');
    process.emit('SIGINT', 'SIGINT');
    off();
    expect(seen).toEqual(['SIGHUP']);
    expect(process.listenerCount('SIGHUP')).toBe(before);
  });

  it('resolve the next one, whichever it is', async () => {
    const before = process.listenerCount('SIGTERM');
    const next = nextStopSignal();
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    process.emit('SIGHUP', 'SIGHUP');
    expect(await next).toBe('SIGHUP');
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });
});

describe('a long-running command', () => {
  it('closes on a stop signal that arrived while it was still starting, instead of dying half-open', async () => {
    const listening = new Map(STOP_SIGNALS.map((signal) => [signal, process.listeners(signal)]));
    // As start, worker and dashboard do: listen first, then open, then wait.
    const stopped = nextStopSignal();
    process.emit('SIGTERM', 'SIGTERM');
    const closed: string[] = [];
    const runtime = {
      logger: { info: (fields: { event: string }) => closed.push(fields.event), warn: () => {} },
      config: { shutdownGraceMs: 5_000 },
      jobsReleased: true,
      close: async () => void closed.push('closed'),
    } as unknown as Runtime;
    const exitCode = process.exitCode;
    try {
      await runUntilSignal(runtime, stopped);
      expect(closed).toEqual(['shutdown', 'closed', 'stopped']);
      expect(process.exitCode).toBe(0);
    } finally {
      process.exitCode = exitCode;
      // runUntilSignal's "a second signal means now" listener.
      for (const signal of STOP_SIGNALS) {
        for (const listener of process.listeners(signal)) if (!listening.get(signal)!.includes(listener)) process.off(signal, listener);
      }
    }
  });

  it('waits out the grace period and the second after it for a close that hangs, then exits with 1 when jobs were not released', async () => {
    const listening = new Map(STOP_SIGNALS.map((signal) => [signal, process.listeners(signal)]));
    vi.useFakeTimers();
    const exits: Array<number | undefined> = [];
    const exit = vi.spyOn(process, 'exit').mockImplementation(((code?: number) => void exits.push(code)) as typeof process.exit);
    const runtime = {
      logger: { info: () => {}, warn: () => {} },
      config: { shutdownGraceMs: 5_000 },
      jobsReleased: false,
      close: () => new Promise<void>(() => {}),
    } as unknown as Runtime;
    try {
      void runUntilSignal(runtime, Promise.resolve('SIGTERM'));
      await vi.advanceTimersByTimeAsync(5_000 + STOP_AFTER_GRACE_MS - 1);
      expect(exits).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(exits).toEqual([1]);
    } finally {
      exit.mockRestore();
      vi.useRealTimers();
      for (const signal of STOP_SIGNALS) {
        for (const listener of process.listeners(signal)) if (!listening.get(signal)!.includes(listener)) process.off(signal, listener);
      }
    }
  });
});
