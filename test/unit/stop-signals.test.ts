import { describe, expect, it } from 'vitest';
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
