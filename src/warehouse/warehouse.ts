/** The handle every warehouse function takes: one client, the engine behind it, and the database. */
import type { ClickHouseClient } from '@clickhouse/client';

export type WarehouseEngine = 'embedded' | 'server';

export interface Warehouse {
  /** Same client code for both engines; use the stores in this folder rather than raw SQL where one exists. */
  readonly client: ClickHouseClient;
  readonly engine: WarehouseEngine;
  /** Database holding mintpipe's tables and views; every statement here names it explicitly. */
  readonly database: string;
  /** Where the data lives: the embedded directory, or the server URL without credentials. */
  readonly location: string;
  /** Closes the client (and, embedded, releases the directory). Safe to call twice. */
  close(): Promise<void>;
}

/**
 * The embedded warehouse as read-only queries need it: where it is and which database, held by
 * this process, without a client (queries open read-only sessions of their own).
 */
export interface EmbeddedQueryTarget {
  readonly engine: 'embedded';
  readonly database: string;
  readonly location: string;
  /** Releases the directory. Safe to call twice. */
  close(): Promise<void>;
}

/** What a read-only query runs against: a warehouse, or the embedded directory held for queries only. */
export type QueryTarget = Warehouse | EmbeddedQueryTarget;
