/**
 * How a read-only query can end other than with rows. Each class is a verdict for the caller:
 * refused and failed mean "change the SQL" (exit 2); a limit or a cancellation is a runtime
 * outcome of SQL that was fine (exit 1).
 */
import { MintpipeError, UsageError } from '../errors.js';

/** The gate refused the SQL before it ran: not one SELECT-like statement, or it names something not allowed. */
export class QueryRefusedError extends UsageError {
  override name = 'QueryRefusedError';
}

/** The SQL passed the gate but the engine refused it while running (unknown column, type error…). */
export class QueryFailedError extends MintpipeError {
  override name = 'QueryFailedError';
  override exitCode = 2;
}

/** The query was stopped by one of its limits (time, memory). */
export class QueryLimitError extends MintpipeError {
  override name = 'QueryLimitError';
}

/** The caller went away (a disconnected gateway client, Ctrl-C) and the query was stopped on the engine. */
export class QueryCancelledError extends MintpipeError {
  override name = 'QueryCancelledError';
}

/**
 * SQL longer than the engine parses (`max_query_size`): a query cannot raise it, since SETTINGS
 * are refused, so the engine's own advice to do so is not passed on (nor the SQL it quotes).
 */
export function sqlTooLong(bytes: number): QueryRefusedError {
  return new QueryRefusedError(`query: the SQL is ${bytes} bytes, more than the engine parses at once (its max_query_size, 256 KiB by default)`);
}

/** The warehouse gateway already runs as many queries as it may at once: try again later (exit 1). */
export class QueryBusyError extends MintpipeError {
  override name = 'QueryBusyError';
}

/** What travels over the gateway, so the other side rebuilds the same verdict. */
export type QueryErrorKind = 'refused' | 'failed' | 'limit' | 'cancelled' | 'busy';

export function queryErrorKind(err: unknown): QueryErrorKind | undefined {
  if (err instanceof QueryRefusedError) return 'refused';
  if (err instanceof QueryFailedError) return 'failed';
  if (err instanceof QueryLimitError) return 'limit';
  if (err instanceof QueryCancelledError) return 'cancelled';
  if (err instanceof QueryBusyError) return 'busy';
  return undefined;
}

export function queryErrorOfKind(kind: QueryErrorKind | undefined, message: string): MintpipeError {
  switch (kind) {
    case 'refused':
      return new QueryRefusedError(message);
    case 'limit':
      return new QueryLimitError(message);
    case 'cancelled':
      return new QueryCancelledError(message);
    case 'busy':
      return new QueryBusyError(message);
    default:
      return new QueryFailedError(message);
  }
}

/** The engine lists every token it would have taken (40 or more): the first few say enough. */
export function shortenExpected(message: string, keep = 6): string {
  return message.replace(/Expected one of: ([^.]*)$/, (whole, list: string) => {
    const items = list.split(', ');
    return items.length <= keep ? whole : `Expected one of: ${items.slice(0, keep).join(', ')}, … (${items.length - keep} more)`;
  });
}
