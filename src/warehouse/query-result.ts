/** A read-only query's answer: its columns and rows, as the CLI, the dashboard and the gateway pass it on. */
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
