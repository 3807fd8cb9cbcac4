/**
 * The one pino logger factory. Secrets are redacted here, at the logger, so no call site has to
 * remember: every serialized line (message, every field, child bindings, errors with their stacks
 * and causes) passes the process redactor (src/secrets/registered-secrets.ts) just before it is
 * written, and `authorization` headers and `apiKey`/`key` fields are censored whole.
 *
 * Output: JSON lines, or on a terminal one readable line per event (src/pretty-log-line.ts,
 * formatted from the already-redacted JSON line); LOG_FORMAT=pretty|json decides instead.
 */
import pino, { type Logger } from 'pino';
import { ConfigError } from '../config/config-error.js';
import { fdDestination } from './log-destination.js';
import { prettyLogLine } from './pretty-log-line.js';
import { redactSecrets } from './secrets/registered-secrets.js';

export type { Logger } from 'pino';
export { redactSecrets, registerSecret } from './secrets/registered-secrets.js';

const REDACT_PATHS = [
  'apiKey',
  'key',
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  '*.apiKey',
  '*.authorization',
  '*.headers.authorization',
  'config.api.key',
];

export const LOG_FORMATS = ['pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** LOG_FORMAT checked: undefined when unset; anything but pretty or json is a ConfigError (exit 2). */
export function parseLogFormat(value: string | undefined): LogFormat | undefined {
  const text = value?.trim().toLowerCase();
  if (!text) return undefined;
  if ((LOG_FORMATS as readonly string[]).includes(text)) return text as LogFormat;
  throw new ConfigError('LOG_FORMAT', `expected pretty or json, got "${value}"`);
}

/** LOG_FORMAT, else pretty for a person at a terminal and JSON lines for pipes, files, CI and collectors. */
export function resolveLogFormat(env: Record<string, string | undefined> = process.env, stream: { isTTY?: boolean } = process.stderr): LogFormat {
  return parseLogFormat(env.LOG_FORMAT) ?? (stream.isTTY === true && !env.CI ? 'pretty' : 'json');
}

export interface LoggerOptions {
  /** @default info */
  level?: string;
  /** Line format. @default resolveLogFormat(): LOG_FORMAT, else pretty on a TTY, JSON lines otherwise */
  format?: LogFormat;
  /** Shorthand for format: true = pretty, false = json. @default undefined (see format) */
  pretty?: boolean;
  /** Where lines go. @default stderr (stdout stays for command output) */
  destination?: NodeJS.WritableStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  const format = options.format ?? (options.pretty === undefined ? resolveLogFormat() : options.pretty ? 'pretty' : 'json');
  const base = {
    level,
    base: { pid: process.pid },
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    hooks: {
      // The whole JSON line, after serializers: nothing a field, a binding or an error adds escapes.
      // The redactor never matches quotes or backslashes' pairs, so the line stays valid JSON.
      streamWrite: (line: string) => redactSecrets(line),
    },
  };
  // Not pino.destination(2): its flush at exit never ends once stderr is gone (log-destination.ts).
  const destination: pino.DestinationStream = options.destination ?? fdDestination(2);
  if (format === 'pretty') {
    // Fed the line after streamWrite (redacted), synchronously, in this thread: no worker, no lost lines at exit.
    const colors = options.destination === undefined && process.stderr.isTTY === true && !process.env.NO_COLOR;
    return pino(base, { write: (line: string) => destination.write(prettyLogLine(line, { colors })) });
  }
  return pino(base, destination);
}
