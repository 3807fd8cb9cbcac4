/**
 * Read-only SQL from users (`mintpipe query`, the gateway): judged on the engine's own parse, run
 * where the engine enforces read-only and the limits, stopped on the engine when the caller goes
 * away. See sql-gate.ts for what is allowed and read-only-session.ts for where it runs.
 */
import { AstReadError, readExplainAst } from './sql-ast.js';
import { judgeStatement } from './sql-gate.js';
import { QueryCancelledError, QueryFailedError, QueryLimitError, QueryRefusedError, shortenExpected } from './query-errors.js';
import { DEFAULT_QUERY_LIMITS, formatTimeout, type QueryLimits } from './query-limits.js';
import { engineErrorCode, engineErrorLine, openReadOnlySession, type ReadOnlySession } from './read-only-session.js';
import type { QueryTarget } from './warehouse.js';

export interface QueryColumn {
  name: string;
  /** ClickHouse type, e.g. `UInt64`, `Nullable(String)`. */
  type: string;
}

export interface QueryResult {
  columns: QueryColumn[];
  rows: Record<string, unknown>[];
  /** Set when the result had more rows than `maxRows`: only the first `truncatedAt` are here. */
  truncatedAt?: number;
}

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

export async function runQuery(wh: QueryTarget, sql: string, options: RunQueryOptions = {}): Promise<QueryResult> {
  const limits: QueryLimits = {
    timeoutMs: options.timeoutMs ?? DEFAULT_QUERY_LIMITS.timeoutMs,
    maxRows: options.maxRows ?? DEFAULT_QUERY_LIMITS.maxRows,
    maxMemoryBytes: options.maxMemoryBytes ?? DEFAULT_QUERY_LIMITS.maxMemoryBytes,
  };
  const { signal } = options;
  if (signal?.aborted) throw new QueryCancelledError('query: cancelled');
  const session = await openReadOnlySession(wh, limits);
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
    let raw;
    try {
      raw = await session.run(statement, signal);
    } catch (err) {
      throw runError(err, stopped, limits);
    }
    notStopped();
    return toResult(raw, limits.maxRows);
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
export async function checkQuery(wh: QueryTarget, sql: string): Promise<string> {
  const session = await openReadOnlySession(wh, DEFAULT_QUERY_LIMITS);
  try {
    return await gate(session, sql);
  } finally {
    await session.close();
  }
}

/**
 * The engine renders the SQL as one line (which refuses several statements and drops every
 * comment), parses that rendering, and the gate judges the parse. What runs is that rendering, so
 * what was judged is what runs.
 */
async function gate(session: ReadOnlySession, sql: string): Promise<string> {
  let rendering: string;
  try {
    rendering = await session.render(sql);
  } catch (err) {
    throw renderError(err);
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
    judgeStatement(readExplainAst(lines), rendering, await session.catalog());
  } catch (err) {
    if (err instanceof AstReadError) throw new QueryRefusedError(`query: the engine's parse of it cannot be checked (${err.message}); quoted names must not hold line breaks`);
    throw err;
  }
  return rendering;
}

function renderError(err: unknown): Error {
  const line = engineErrorLine(err);
  if (engineErrorCode(err) !== SYNTAX_ERROR) return new QueryFailedError(`query: ${line}`);
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

function toResult(raw: { meta?: QueryColumn[]; data: unknown[][] }, maxRows: number): QueryResult {
  const columns = (raw.meta ?? []).map((column) => ({ name: column.name, type: column.type }));
  const cut = raw.data.length > maxRows;
  const data = cut ? raw.data.slice(0, maxRows) : raw.data;
  const rows = data.map((values) => Object.fromEntries(columns.map((column, i) => [column.name, values[i]])));
  return cut ? { columns, rows, truncatedAt: maxRows } : { columns, rows };
}
