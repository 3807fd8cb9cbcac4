/**
 * The pipeline client's connection to the embedded engine, with every statement counted in the
 * engine's in-flight queries (in-flight-queries.ts): its close waits for them and stops them, and
 * a statement after close is refused instead of reaching a connection being torn down.
 */
import type { ClickHouseClientConfigOptions } from '@clickhouse/client';
import type { InFlightQueries } from './in-flight-queries.js';

export type ClientConnection = NonNullable<ClickHouseClientConfigOptions['connection']>;

/** `connection` with its statements counted under `marker`, the `log_comment` its session carries. */
export function countedConnection(connection: ClientConnection, queries: InFlightQueries, marker: string): ClientConnection {
  return {
    query: (params) => queries.run(marker, () => connection.query(params)),
    exec: (params) => queries.run(marker, () => connection.exec(params)),
    command: (params) => queries.run(marker, () => connection.command(params)),
    insert: (params) => queries.run(marker, () => connection.insert(params)),
    ping: (params) => connection.ping(params),
    close: () => connection.close(),
  };
}
