/**
 * Keeps a long-running command in the foreground until SIGINT, SIGTERM or SIGHUP (stop-signals.ts),
 * then closes it cleanly. The command listens from its first step (`nextStopSignal()` before it
 * opens anything), so a signal that arrives while it is still starting is kept and honoured once it
 * has started, instead of killing it half-open with its private redis-server left behind.
 *
 * Workers get the grace period (MINTPIPE_SHUTDOWN_GRACE) to finish their jobs; then they are
 * force-closed, which releases the jobs still running (another worker resumes them from their
 * checkpoints once their locks lapse). Whatever else is still closing after that gets one more
 * second: the process exits at most STOP_AFTER_GRACE_MS after the grace period, with code 0 when
 * its workers let go of their jobs, 1 when they could not.
 */
import type { Runtime } from './runtime.js';
import { onStopSignal, signalExitCode, type StopSignal } from './stop-signals.js';

/** Time allowed after the grace period for the rest of the runtime to close. */
export const STOP_AFTER_GRACE_MS = 900;

export async function runUntilSignal(runtime: Runtime, stopped: Promise<StopSignal>): Promise<void> {
  const signal = await stopped;
  runtime.logger.info({ event: 'shutdown', signal, graceMs: runtime.config.shutdownGraceMs }, 'stopping');
  // A second signal while closing means "now".
  onStopSignal(() => process.exit(signalExitCode(signal)), { once: true });
  const hardStop = setTimeout(() => {
    runtime.logger.warn({ event: 'shutdown_cut_short', jobsReleased: runtime.jobsReleased }, 'stopped before every resource closed');
    process.exit(runtime.jobsReleased ? 0 : 1);
  }, runtime.config.shutdownGraceMs + STOP_AFTER_GRACE_MS);
  hardStop.unref();
  await runtime.close();
  runtime.logger.info({ event: 'stopped', signal }, 'stopped');
  process.exitCode = 0;
}
