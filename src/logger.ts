/**
 * The one pino logger factory. Secrets are redacted here, at the logger, so no call site has to
 * remember: any `authorization` header, `apiKey`/`key` field, and any `mint_…` token inside a
 * message string.
 */
import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

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

/** Replaces anything that looks like a Mintlify admin key. */
export function redactSecrets(text: string): string {
  return text.replace(/mint_[A-Za-z0-9_-]+/g, 'mint_[REDACTED]');
}

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
    formatters: {
      log(object: Record<string, unknown>) {
        // Error messages can quote URLs or bodies; scrub key-shaped tokens from them.
        const err = object.err as { message?: unknown } | undefined;
        if (err && typeof err.message === 'string') err.message = redactSecrets(err.message);
        return object;
      },
    },
    hooks: {
      logMethod(args: unknown[], method: (...a: unknown[]) => void) {
        method.apply(this, args.map((a) => (typeof a === 'string' ? redactSecrets(a) : a)));
      },
    },
  };
  if (pretty) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { destination: 2, colorize: true } } });
  }
  return pino(base, (options.destination as pino.DestinationStream | undefined) ?? pino.destination(2));
}
