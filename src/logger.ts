/**
 * The one pino logger factory. Secrets are redacted here, at the logger, so no call site has to
 * remember: every serialized line (message, every field, child bindings, errors with their stacks
 * and causes) passes the process redactor (src/secrets/registered-secrets.ts) just before it is
 * written, and `authorization` headers and `apiKey`/`key` fields are censored whole.
 */
import pino, { type Logger } from 'pino';
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

export interface LoggerOptions {
  /** @default info */
  level?: string;
  /** Pretty output (on a TTY); JSON lines otherwise. @default process.stderr.isTTY */
  pretty?: boolean;
  /** Where lines go. @default stderr (stdout stays for command output) */
  destination?: NodeJS.WritableStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  const pretty = options.pretty ?? (process.stderr.isTTY === true && !process.env.CI);
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
  if (pretty) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { destination: 2, colorize: true } } });
  }
  return pino(base, (options.destination as pino.DestinationStream | undefined) ?? pino.destination(2));
}
