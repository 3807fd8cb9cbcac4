/**
 * Routes @clickhouse/client's own log lines to mintpipe's pino logger instead of its console
 * logger, which prints multi-line reports to stderr (and would break the CLI's one-line errors).
 */
import { ClickHouseLogLevel, type ClickHouseClientConfigOptions, type ErrorLogParams, type LogParams, type WarnLogParams } from '@clickhouse/client';
import pino from 'pino';
import type { Logger } from '../logger.js';

const silent = pino({ level: 'silent' });

export function clientLogOptions(logger: Logger | undefined): NonNullable<ClickHouseClientConfigOptions['log']> {
  // The client warns about its configuration through LoggerClass whatever the level: always set one.
  const log = logger ? logger.child({ component: 'clickhouse-client' }) : silent;
  class PinoClickHouseLogger {
    trace({ module, message, args }: LogParams) {
      log.trace({ module, ...args }, message);
    }
    debug({ module, message, args }: LogParams) {
      log.debug({ module, ...args }, message);
    }
    info({ module, message, args }: LogParams) {
      log.debug({ module, ...args }, message);
    }
    warn({ module, message, args, err }: WarnLogParams) {
      log.warn({ module, ...args, err }, message);
    }
    // Every error the client logs is also thrown to the caller, who reports it; logging it here too
    // would print each failure twice.
    error({ module, message, args, err }: ErrorLogParams) {
      log.debug({ module, ...args, err }, message);
    }
  }
  return { LoggerClass: PinoClickHouseLogger, level: logger ? ClickHouseLogLevel.TRACE : ClickHouseLogLevel.OFF };
}
