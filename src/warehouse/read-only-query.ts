/**
 * Read-only SQL from users (`mintpipe query`, the gateway): judged on the engine's own parse, run
 * where the engine enforces read-only and the limits, stopped on the engine when the caller goes
 * away. See sql-gate.ts for what is allowed and read-only-session.ts for where it runs.
 */
import { AstReadError, readExplainAst } from './sql-ast.js';
import { judgeStatement } from './sql-gate.js';
import { QueryCancelledError, QueryFailedError, QueryLimitError, QueryRefusedError, shortenExpected, sqlTooLong } from './query-errors.js';
import { DEFAULT_QUERY_LIMITS, formatTimeout, type QueryLimits } from './query-limits.js';
import { engineErrorCode, engineErrorLine, type JudgedStatement, type ReadOnlySession } from './read-only-session.js';
import type { ResultFormat } from './result-format.js';
import { RowCutter } from './row-cutter.js';
import { RowsCollector } from './rows-collector.js';
import type { WarehouseEngine } from './warehouse-engine.js';

/** What a query runs on: an open engine, or a warehouse (an open engine with the pipeline's client). */
type QuerySource = Pick<WarehouseEngine, 'readOnlySession'>;

import type { QueryResult } from './query-result.js';

export type { QueryColumn, QueryResult } from './query-result.js';

export interface RunQueryOptions extends Partial<QueryLimits> {
  /** Aborting stops the query on the engine; the call then rejects with QueryCancelledError. */
  signal?: AbortSignal;
}

/** Engine error codes that mean "a limit stopped it". */
const TIMEOUT_EXCEEDED = 159;
const MEMORY_LIMIT_EXCEEDED = 241;
const TOO_MANY_ROWS_OR_BYTES = 396;
const QUERY_WAS_CANCELLED = 394;
const READONLY = 164;
const SYNTAX_ERROR = 62;

/** How long past its timeout a query may take before it is killed from outside (the engine checks its time between blocks). */
const KILL_GRACE_MS = 1_000;
/** A KILL can land before the query is registered; it is repeated until the query ends. */
const KILL_REPEAT_MS = 250;

export interface StreamQueryOptions extends RunQueryOptions {
  format: ResultFormat;
}

/** How a streamed result ended: every row written, or `maxRows` of them and the rest cut. */
export interface StreamOutcome {
  /** Rows written (header lines not counted). */
  rows: number;
  /** The result had more rows than `maxRows`; only the first `rows` were written. */
  cut: boolean;
}

/** Where a streamed result goes; awaited before the next chunk is fetched, so a slow reader holds the engine back. */
export type ChunkSink = (chunk: Uint8Array) => Promise<void> | void;

/** A limit given to a call, or its default (`maxRows: null` is "no cap", not "unset"). */
function resolveLimits(options: Partial<QueryLimits>): QueryLimits {
  return {
    timeoutMs: options.timeoutMs ?? DEFAULT_QUERY_LIMITS.timeoutMs,
    maxRows: options.maxRows === undefined ? DEFAULT_QUERY_LIMITS.maxRows : options.maxRows,
    maxMemoryBytes: options.maxMemoryBytes ?? DEFAULT_QUERY_LIMITS.maxMemoryBytes,
  };
}

/** Runs read-only SQL and returns its rows (at most `maxRows`, with `truncatedAt` when it cut). */
export async function runQuery(wh: QuerySource, sql: string, options: RunQueryOptions = {}): Promise<QueryResult> {
  const collector = new RowsCollector();
  const outcome = await streamQuery(wh, sql, { ...options, format: 'rows' }, (chunk) => collector.add(chunk));
  return collector.result(outcome.cut ? outcome.rows : undefined);
}

/**
 * Runs read-only SQL and hands its result to `write` in `format` as the engine produces it, chunk
 * by chunk: nothing but the chunk in hand is held here. More rows than `maxRows` are cut (the
 * engine stops soon after) and the outcome says so; a limit or a cancellation after some chunks
 * were written rejects as it would before any.
 */
export async function streamQuery(wh: QuerySource, sql: string, options: StreamQueryOptions, write: ChunkSink): Promise<StreamOutcome> {
  const limits = resolveLimits(options);
  return withReadOnlyQuery(wh, sql, limits, options.signal, async (session, statement) => {
    const cutter = new RowCutter(options.format, limits.maxRows);
    for await (const chunk of session.stream(statement, options.format, options.signal)) {
      const part = cutter.take(chunk);
      if (part.length > 0) await write(part);
      // Leaving the loop ends the query on the engine.
      if (cutter.cut) break;
    }
    return { rows: cutter.rows, cut: cutter.cut };
  });
}

/**
 * Opens a read-only session, judges `sql`, and runs `body` on the judged statement under the
 * time limit and the caller's signal, both of which stop the query on the engine.
 */
async function withReadOnlyQuery<T>(
  wh: QuerySource,
  sql: string,
  limits: QueryLimits,
  signal: AbortSignal | undefined,
  body: (session: ReadOnlySession, statement: JudgedStatement) => Promise<T>,
): Promise<T> {
  if (signal?.aborted) throw new QueryCancelledError('query: cancelled');
  const session = await wh.readOnlySession(limits);
  let stopped: 'timeout' | 'cancelled' | undefined;
  let settled = false;
  let repeat: NodeJS.Timeout | undefined;
  const stop = (reason: 'timeout' | 'cancelled') => {
    if (stopped || settled) return;
    stopped = reason;
    const kill = () => void session.stop().catch(() => undefined);
    kill();
    repeat = setInterval(kill, KILL_REPEAT_MS);
  };
  const onAbort = () => stop('cancelled');
  signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => stop('timeout'), limits.timeoutMs + KILL_GRACE_MS);
  const notStopped = () => {
    if (stopped) throw stoppedError(stopped, limits);
  };
  try {
    let statement;
    try {
      statement = await gate(session, sql);
    } catch (err) {
      // Stopped while being judged: the stop is the outcome, not whatever the engine said.
      notStopped();
      throw err;
    }
    notStopped();
    let outcome: T;
    try {
      outcome = await body(session, statement);
    } catch (err) {
      throw runError(err, stopped, limits);
    }
    notStopped();
    return outcome;
  } finally {
    settled = true;
    clearTimeout(timer);
    clearInterval(repeat);
    signal?.removeEventListener('abort', onAbort);
    await session.close();
  }
}

/**
 * Judges `sql` without running it: returns the engine's rendering of the one statement that would
 * run, or throws QueryRefusedError naming what was refused.
 */
export async function checkQuery(wh: QuerySource, sql: string): Promise<string> {
  const session = await wh.readOnlySession(DEFAULT_QUERY_LIMITS);
  try {
    return (await gate(session, sql)).sql;
  } finally {
    await session.close();
  }
}

/**
 * The engine renders the SQL as one line (which refuses several statements and drops every
 * comment), parses that rendering, and the gate judges the parse. What runs is that rendering, so
 * what was judged is what runs.
 */
async function gate(session: ReadOnlySession, sql: string): Promise<JudgedStatement> {
  let rendering: string;
  try {
    rendering = await session.render(sql);
  } catch (err) {
    throw renderError(err, sql);
  }
  let lines: string[];
  try {
    lines = await session.explainAst(rendering);
  } catch (err) {
    // The sealed session refuses to apply a top-level SETTINGS clause even to EXPLAIN.
    if (engineErrorCode(err) === READONLY) throw new QueryRefusedError('query: a SETTINGS clause is not allowed (limits come from --timeout and --max-rows)');
    throw new QueryRefusedError(`query: the engine cannot parse it: ${engineErrorLine(err)}`);
  }
  try {
    const verdict = judgeStatement(readExplainAst(lines), rendering, await session.catalog());
    return { sql: rendering, select: verdict.statement === 'SELECT' };
  } catch (err) {
    if (err instanceof AstReadError) throw new QueryRefusedError(`query: the engine's parse of it cannot be checked (${err.message}); quoted names must not hold line breaks`);
    throw err;
  }
}

function renderError(err: unknown, sql: string): Error {
  const line = engineErrorLine(err);
  if (engineErrorCode(err) !== SYNTAX_ERROR) return new QueryFailedError(`query: ${line}`);
  if (line.startsWith('Max query size exceeded')) return sqlTooLong(Buffer.byteLength(sql, 'utf8'));
  if (line.startsWith('Empty query')) return new QueryRefusedError('query: the SQL is empty');
  if (line.includes('Multi-statements are not allowed')) return new QueryRefusedError('query: only one statement is allowed');
  return new QueryRefusedError(`query: syntax error: ${shortenExpected(line.replace(/^Syntax error: /, ''))}`);
}

function stoppedError(reason: 'timeout' | 'cancelled', limits: QueryLimits): Error {
  return reason === 'timeout'
    ? new QueryLimitError(`query: stopped after ${formatTimeout(limits.timeoutMs)} (the --timeout limit)`)
    : new QueryCancelledError('query: cancelled; the query was stopped on the engine');
}

function runError(err: unknown, stopped: 'timeout' | 'cancelled' | undefined, limits: QueryLimits): Error {
  const code = engineErrorCode(err);
  if (stopped) return stoppedError(stopped, limits);
  switch (code) {
    case TIMEOUT_EXCEEDED:
      return stoppedError('timeout', limits);
    case MEMORY_LIMIT_EXCEEDED:
      return new QueryLimitError(`query: stopped at the memory limit of ${Math.round(limits.maxMemoryBytes / 1024 / 1024)} MiB`);
    case TOO_MANY_ROWS_OR_BYTES:
    case QUERY_WAS_CANCELLED:
      return new QueryLimitError(`query: stopped by the engine: ${engineErrorLine(err)}`);
    case READONLY:
      return new QueryRefusedError(`query: refused by the engine in read-only mode: ${engineErrorLine(err)}`);
    case undefined:
      return err instanceof Error ? err : new Error(String(err));
    default:
      return new QueryFailedError(`query: ${engineErrorLine(err)}`);
  }
}
