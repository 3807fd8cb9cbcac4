/**
 * How the dashboard, metrics and `status` read the warehouse: directly when this process can open
 * it, and otherwise — another mintpipe process (start, worker) holds the embedded engine — through
 * that process's read-only gateway, the way `mintpipe query` does. Either way a reader only runs
 * SELECTs; through the gateway each one is judged and run read-only there.
 */
import type { EngineKind, QueryResult, Warehouse } from '../warehouse/index.js';
import { configuredEngine, QueryBusyError, selectRows } from '../warehouse/index.js';
import { WarehouseGatewayError } from './warehouse-gateway-error.js';

export interface WarehouseReader {
  /** Database of mintpipe's tables and views (what `tableName` qualifies names with). */
  readonly database: string;
  /** The engine's kind when read directly, `gateway` when read through the process holding the engine. */
  readonly via: EngineKind | 'gateway';
  /** Rows of one SELECT; `{name:Type}` placeholders take their values from `params`. */
  select<T>(sql: string, params?: Record<string, unknown>): Promise<T[]>;
}

/** Runs read-only SQL through the running installation; undefined when none answers. */
export type GatewayQuery = (sql: string) => Promise<QueryResult | undefined>;

/** Where to look for the running installation's gateway. */
export interface ReaderSettings {
  dataDir: string;
  /** With a server `url`, every process reads the server itself: no gateway is asked. */
  clickhouse: { database: string; url?: string };
}

export function directReader(wh: Warehouse): WarehouseReader {
  return { database: wh.database, via: wh.kind, select: (sql, params) => selectRows(wh, sql, params) };
}

/** A ClickHouse literal of a parameter value (strings, finite numbers, booleans, arrays of them). */
function literal(value: unknown, name: string): string {
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map((v) => literal(v, name)).join(', ')}]`;
  throw new TypeError(`query parameter ${name}: cannot be written as a literal`);
}

/** A value as the placeholder's type: plain literals for integers, strings and string arrays, a CAST otherwise. */
function typedLiteral(value: unknown, type: string, name: string): string {
  const text = literal(value, name);
  if (/^U?Int(8|16|32|64)$/.test(type)) {
    if (!Number.isInteger(value)) throw new TypeError(`query parameter ${name}: expected an integer for ${type}`);
    return text;
  }
  // Integer and string literals go where an expression may not (LIMIT n BY …, x IN [...]).
  if (type === 'String' || type === 'Array(String)') {
    if (type === 'String' ? typeof value !== 'string' : !Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
      throw new TypeError(`query parameter ${name}: expected ${type}`);
    }
    return text;
  }
  return `CAST(${text} AS ${type})`;
}

/**
 * The SQL with each `{name:Type}` replaced by its value as a literal: the gateway takes SQL only.
 * Other types are cast, so a Date stays a Date (`date_from + 1`).
 */
export function inlineParams(sql: string, params: Record<string, unknown> = {}): string {
  return sql.replace(/\{([A-Za-z_][A-Za-z0-9_]*):([^{}]+)\}/g, (_match, name: string, type: string) => {
    if (!(name in params)) throw new TypeError(`query parameter ${name}: no value given`);
    return typedLiteral(params[name], type.trim(), name);
  });
}

export function gatewayReader(database: string, query: GatewayQuery, unavailable: () => Error): WarehouseReader {
  return {
    database,
    via: 'gateway',
    async select<T>(sql: string, params?: Record<string, unknown>): Promise<T[]> {
      const result = await query(inlineParams(sql, params));
      // The holder stopped (or never served a gateway): say what holds the warehouse.
      if (!result) throw unavailable();
      return result.rows as T[];
    },
  };
}

/** Limits of one read through the gateway: the dashboard's reads are small, but a page must not hang. */
const GATEWAY_LIMITS = { timeoutMs: 15_000, maxRows: 100_000 };

/** Longest pause between two asks of a busy gateway. */
const BUSY_RETRY_MAX_MS = 1_000;

let gatewayTurn: Promise<unknown> = Promise.resolve();

/**
 * This process's reads through the gateway go one at a time: a dashboard's panels (or `status`'s
 * reads) read in parallel, and together must take one of the gateway's few slots
 * (MINTPIPE_GATEWAY_CONCURRENCY), not all of them.
 */
function inTurn<T>(read: () => Promise<T>): Promise<T> {
  const result = gatewayTurn.then(read, read);
  gatewayTurn = result.catch(() => undefined);
  return result;
}

/** A gateway busy with other queries (429) is asked again, with growing pauses, until the read's own time is up. */
async function askUntilFree<T>(read: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let pauseMs = 50; ; pauseMs = Math.min(pauseMs * 2, BUSY_RETRY_MAX_MS)) {
    try {
      return await read();
    } catch (err) {
      if (!(err instanceof QueryBusyError) || Date.now() + pauseMs > deadline) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

/** Something that can open the warehouse (a Runtime, a test stack). */
export interface WarehouseOpener {
  warehouse(): Promise<Warehouse>;
}

/**
 * A reader of the warehouse: through the running installation's gateway when another live process
 * serves one for this data dir (it holds the embedded engine; opening it here would only wait for
 * it) and no server is configured, otherwise this process's own (a server, a free embedded
 * directory, or one it already holds).
 */
export async function openReader(source: WarehouseOpener, settings: ReaderSettings | undefined): Promise<WarehouseReader> {
  // A gateway serves an embedded engine only; one found beside a server URL is another setup's.
  if (settings && configuredEngine(settings).exclusiveDir !== undefined) {
    const { gatewayPid, queryThroughGateway } = await import('../warehouse/gateway-client.js');
    const holder = gatewayPid(settings.dataDir);
    if (holder !== undefined && holder !== process.pid) {
      const dataDir = settings.dataDir;
      return gatewayReader(
        settings.clickhouse.database,
        (sql) => inTurn(() => askUntilFree(() => queryThroughGateway(dataDir, sql, GATEWAY_LIMITS), GATEWAY_LIMITS.timeoutMs)),
        () => new WarehouseGatewayError(holder),
      );
    }
  }
  return directReader(await source.warehouse());
}
