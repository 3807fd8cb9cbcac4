/** Keeps a long-running command in the foreground until SIGINT/SIGTERM, then closes it cleanly. */
import type { Runtime } from './runtime.js';

export async function runUntilSignal(runtime: Runtime): Promise<void> {
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  runtime.logger.info({ event: 'shutdown', signal, graceMs: runtime.config.shutdownGraceMs }, 'stopping');
  // A second signal while closing means "now".
  const force = () => process.exit(signal === 'SIGINT' ? 130 : 143);
  process.once('SIGINT', force);
  process.once('SIGTERM', force);
  const hardStop = setTimeout(force, runtime.config.shutdownGraceMs + 10_000);
  hardStop.unref();
  await runtime.close();
  process.exitCode = 0;
}
