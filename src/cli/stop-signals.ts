/**
 * The signals that ask a command to stop: Ctrl-C (SIGINT), a service manager (SIGTERM), and a
 * closed terminal or SSH session (SIGHUP). Node's default for SIGHUP is to die on the spot, which
 * skipped the clean stop: a `start` whose terminal closed left its private redis-server running and
 * its jobs locked until their locks lapsed.
 */
import { constants } from 'node:os';

export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** The exit code of a process ended by `signal`, as a shell reports it: 128 + its number. */
export function signalExitCode(signal: StopSignal): number {
  return 128 + constants.signals[signal];
}

/**
 * Calls `handler` on each stop signal until the returned function is called. With `once`, it is
 * called for the first of them only (the others stay handled, so they do not kill the process).
 */
export function onStopSignal(handler: (signal: StopSignal) => void, options: { once?: boolean } = {}): () => void {
  let fired = false;
  const listeners = STOP_SIGNALS.map((signal) => {
    const listener = () => {
      if (options.once && fired) return;
      fired = true;
      handler(signal);
    };
    process.on(signal, listener);
    return [signal, listener] as const;
  });
  return () => {
    for (const [signal, listener] of listeners) process.off(signal, listener);
  };
}

/** Aborted, with the signal's name as its reason, once `stopped` (nextStopSignal) has arrived. */
export function abortOnStop(stopped: Promise<StopSignal>): AbortSignal {
  const controller = new AbortController();
  void stopped.then((signal) => controller.abort(signal));
  return controller.signal;
}

/** The first stop signal to arrive. Its listeners are removed once it has. */
export function nextStopSignal(): Promise<StopSignal> {
  return new Promise((resolve) => {
    const off = onStopSignal((signal) => {
      off();
      resolve(signal);
    });
  });
}
