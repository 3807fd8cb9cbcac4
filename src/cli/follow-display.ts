/**
 * Following work from the CLI with a progress display. Ctrl-C stops the following (and this
 * process's workers), never the work: the line `stopped` gives says where it stands and how to
 * follow it again.
 */
import type { ProgressDisplay } from './progress-display.js';
import { onStopSignal } from './stop-signals.js';

export async function followWithDisplay<T>(stopped: () => string, follow: (display: ProgressDisplay) => Promise<T>): Promise<T> {
  const { ProgressDisplay } = await import('./progress-display.js');
  const display = new ProgressDisplay();
  const off = onStopSignal(
    () => {
      display.stop();
      process.stderr.write(`${stopped()}\n`);
    },
    { once: true },
  );
  try {
    return await follow(display);
  } finally {
    off();
    display.stop();
  }
}
