/** Shared plumbing of CLI commands: settings, logger, a runtime closed on exit or Ctrl-C. */
import { configuredSecrets } from '../../config/configured-secrets.js';
import { loadConfig, type MintpipeConfig } from '../../config/index.js';
import { createLogger, registerSecret, resolveLogFormat, type Logger } from '../logger.js';
import { prepareDataDir } from '../private-files.js';
import { configuredEngine } from '../warehouse/factory.js';
import type { Runtime } from './runtime.js';
import { STOP_AFTER_GRACE_MS } from './run-until-signal.js';
import { onStopSignal, signalExitCode } from './stop-signals.js';

export interface CommandContext {
  config: MintpipeConfig;
  logger: Logger;
}

/**
 * Parses the environment once (refusals are ConfigErrors, exit 2) and makes the logger (pretty
 * lines on a terminal, JSON lines otherwise, LOG_FORMAT=pretty|json to choose). One-shot
 * commands log warnings and errors only unless LOG_LEVEL is set, so their output and progress
 * stay readable; long-running ones (start, worker, dashboard) log events at info.
 */
export function loadContext(options: { oneShot?: boolean; usesApi?: boolean } = {}, env: Record<string, string | undefined> = process.env): CommandContext {
  const config = loadConfig(env, { usesApi: options.usesApi });
  // A command that does not read the key still keeps whatever the variable holds out of its output.
  if (options.usesApi === false) registerSecret(env.MINTLIFY_API_KEY?.trim() || undefined);
  // LOG_FORMAT is the logger's own setting: checked here, with the rest, so a bad one exits 2.
  const format = resolveLogFormat(env);
  // Before anything can print: the logger, API errors and job records all redact the key and the
  // URL credentials from here on.
  for (const secret of configuredSecrets(config)) registerSecret(secret);
  const level = options.oneShot && !env.LOG_LEVEL?.trim() ? 'warn' : config.logLevel;
  const logger = createLogger({ level, format });
  // Before anything creates paths there: the data dir is made (when the embedded warehouse or the
  // private Redis will use it) or narrowed to its owner, with what mintpipe made in it before.
  prepareDataDir(config.dataDir, { logger, create: configuredEngine(config).exclusiveDir !== undefined || config.redis.url === undefined });
  return { config: { ...config, logLevel: level as MintpipeConfig['logLevel'] }, logger };
}

/**
 * Runs `body` with an open runtime and closes it afterwards, also on a stop signal (then exits
 * 128 + its number: 130 for Ctrl-C), so a one-shot command leaves nothing running.
 */
export async function withRuntime<T>(context: CommandContext, body: (runtime: Runtime) => Promise<T>): Promise<T> {
  // Loaded on use: `--help` and refused input stay fast without BullMQ and the engine.
  const { Runtime } = await import('./runtime.js');
  const runtime = await Runtime.open(context);
  let stopping = false;
  const off = onStopSignal((signal) => {
    const now = () => {
      runtime.releaseNow();
      process.exit(signalExitCode(signal));
    };
    // A second signal while closing means "now".
    if (stopping) now();
    stopping = true;
    context.logger.info({ event: 'signal', signal }, 'stopping');
    // Never waits on a close forever: workers get the grace period, the rest a moment more.
    setTimeout(now, runtime.config.shutdownGraceMs + STOP_AFTER_GRACE_MS).unref();
    void runtime.close().finally(() => process.exit(signalExitCode(signal)));
  });
  try {
    return await body(runtime);
  } catch (err) {
    // Stopping closes the connections under the body, which then fails ("Connection is closed"):
    // that is the stop, not an error. The process exits with the signal's code once closed.
    if (stopping) return await new Promise<never>(() => {});
    throw err;
  } finally {
    off();
    await runtime.close();
  }
}
