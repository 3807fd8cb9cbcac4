/** The handle every warehouse function takes: an open engine with the pipeline's client on it. */
import type { ClickHouseClient } from '@clickhouse/client';
import type { WarehouseEngine } from './warehouse-engine.js';

export type { EngineKind } from './warehouse-engine.js';

export interface Warehouse extends Omit<WarehouseEngine, 'open' | 'connect'> {
  /** Same client code for both engines; use the stores in this folder rather than raw SQL where one exists. */
  readonly client: ClickHouseClient;
}

