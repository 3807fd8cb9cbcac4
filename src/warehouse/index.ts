/** The warehouse: open it, then call the stores. Exported by name. */
export { configuredEngine, openForQueries, openWarehouse, warehouseEngine, type OpenWarehouseOptions } from './factory.js';
export type { Warehouse } from './warehouse.js';
export type { EngineKind, EngineOptions, WarehouseEngine } from './warehouse-engine.js';
export {
  RunRowsMismatchError,
  WarehouseClosedError,
  WarehouseLockedError,
  WarehouseProcessBoundError,
  WarehouseUnavailableError,
} from './errors.js';
export {
  applyMigrations,
  appliedMigrations,
  migrations,
  type ApplyMigrationsOptions,
  type Migration,
} from './migrations.js';
export {
  findDuplicateKey,
  insertBatchFindings,
  insertRowBatch,
  runProgress,
  storedRows,
  type BatchFinding,
  type RowBatch,
  type RunProgress,
  type RunWindow,
} from './dataset-rows.js';
export {
  EXPORT_RUN_COLUMNS,
  toExportRun,
  type ExportRunRow,
  completeRun,
  latestCompleteRun,
  latestRuns,
  otherRunsOfWindow,
  recordRunEvent,
  type CompletedRun,
  type ExportRun,
  type LatestRunsOptions,
  type RunEvent,
  type RunKind,
  type RunStatus,
} from './export-runs.js';
export { pruneSuperseded, type PruneOptions, type PruneResult } from './prune.js';
export { ABANDONED_RETENTION_MS, latestResumableRun, runningRunsUntouchedSince, type RunOfWindow } from './resumable-runs.js';
export {
  insertPromptEvent,
  insertPromptEvents,
  promptOutcomes,
  type PromptEvent,
  type PromptOutcome,
  type PromptStatus,
} from './prompt-events.js';
export { readPromptLedger, type LedgerEntry, type LedgerQuery } from './prompt-ledger.js';
export { checkQuery, runQuery, type QueryColumn, type QueryResult, type RunQueryOptions } from './read-only-query.js';
export {
  QueryBusyError,
  QueryCancelledError,
  QueryFailedError,
  QueryLimitError,
  QueryRefusedError,
  queryErrorKind,
  queryErrorOfKind,
  type QueryErrorKind,
} from './query-errors.js';
export {
  DEFAULT_QUERY_LIMITS,
  MAX_QUERY_ROWS,
  MAX_QUERY_TIMEOUT_MS,
  parseMaxRows,
  parseQueryTimeout,
  type QueryLimits,
} from './query-limits.js';
export { formatRows, type RowFormat } from './format-rows.js';
export { insertRows, type InsertRowsOptions } from './insert-rows.js';
export { selectRows } from './select-rows.js';
export { tableName } from './sql-text.js';
