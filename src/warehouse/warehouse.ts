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
