/**
 * The seam between mintpipe and the engine its warehouse runs on: the embedded engine
 * (engine-embedded.ts) or a ClickHouse server (engine-server.ts). factory.ts picks one; everything
 * else asks the engine for what it needs, never which one it is.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { Logger } from '../logger.js';
import type { LockWait } from './embedded-lock.js';
import type { CloseWait } from './in-flight-queries.js';
import type { QueryLimits } from './query-limits.js';
import type { ReadOnlySession } from './read-only-session.js';

/** What logs, `status` and messages call an engine; nothing branches on it. */
export type EngineKind = 'embedded' | 'server';

export interface EngineOptions {
  /** ClickHouse server URL (`CLICKHOUSE_URL`). @default undefined: the embedded engine under `dataDir` */
  url?: string;
  /** Server user. @default default */
  user?: string;
  /** Server password. @default '' */
  password?: string;
  /** Database of mintpipe's tables and views; created when missing. */
  database: string;
  /** The embedded engine keeps its data in `<dataDir>/clickhouse`. */
  dataDir: string;
  logger?: Logger;
  /** While another process holds the engine, wait for it (within `timeoutMs`) instead of refusing at once. @default no wait */
  lockWait?: LockWait;
  /**
   * How long the embedded engine's close waits for queries still running: they get `settleMs` to
   * end, then are stopped and get `stopMs` more; after that it closes anyway.
   * @default { settleMs: 250, stopMs: 500 } (DEFAULT_CLOSE_WAIT)
   */
  closeWait?: Partial<CloseWait>;
}

export interface WarehouseEngine {
  readonly kind: EngineKind;
  /** Database holding mintpipe's tables and views; every statement names it explicitly. */
  readonly database: string;
  /** Where the data lives: the embedded directory, or the server URL without credentials. */
  readonly location: string;
  /**
   * The directory one process at a time may hold: its holder serves read-only queries to the other
   * mintpipe processes of the data dir (warehouse-gateway.ts). Undefined when every process opens
   * the engine itself.
   */
  readonly exclusiveDir: string | undefined;
  /** How messages name it: `the embedded warehouse in <dataDir>`, `a ClickHouse server (CLICKHOUSE_URL)`. */
  readonly title: string;
  /** The setting that points mintpipe at it, for messages. */
  readonly setting: 'MINTPIPE_DATA_DIR' | 'CLICKHOUSE_URL';
  /** Takes the engine for this process; refused (WarehouseLockedError) while another holds it. */
  open(): Promise<void>;
  /** The pipeline's client on the open engine, made on the first call (read-only queries do without). */
  connect(): Promise<ClickHouseClient>;
  /** A connection of its own for one user query, on which the engine enforces read-only and the limits. */
  readOnlySession(limits: QueryLimits): Promise<ReadOnlySession>;
  /**
   * Closes the client and gives back what `open` took; from its call on, every query is refused
   * (WarehouseClosedError). The embedded engine first waits for the queries still running, and
   * stops them (`closeWait`). Safe to call twice: the second call waits for the first.
   */
  close(): Promise<void>;
}
