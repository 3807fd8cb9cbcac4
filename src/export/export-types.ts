/**
 * The shapes an export of one window works with: its dependencies, the task, the checkpoint saved
 * in the job between steps, and the outcome.
 */
import type { MintlifyClient } from '../api/index.js';
import type { DatasetName, Finding, PiiMode } from '../datasets/index.js';
import type { Logger } from '../logger.js';
import type { RequestBudget } from '../queue/request-budget.js';
import type { Warehouse } from '../warehouse/index.js';
import type { ExportWindow, WindowKind } from './windows.js';

export interface ExportSettings {
  /** Pages in flight at once when the budget is off. @default 16 */
  prefetchPages: number;
  /** Rows per insert. @default 5000 */
  batchRows: number;
  /** A window with more pages fails. @default 20000 */
  maxPages: number;
  /** Fresh runs after the data moved mid-run (or a cursor was refused). @default 2 */
  unstableRetries: number;
  /** Load what was fetched at least this often while pages trickle in. @default 5000 */
  flushIntervalMs?: number;
  /** Personal fields (feedback `contact`): kept, hashed or dropped. @default keep */
  pii?: PiiMode;
}

/** Counters the metrics layer may observe. */
export interface ExportObserver {
  pageFetched?(projectId: string, dataset?: DatasetName): void;
  rowsLoaded?(projectId: string, rows: number, dataset?: DatasetName): void;
}

export interface ExportDeps {
  client: MintlifyClient;
  warehouse: Warehouse;
  budget: RequestBudget;
  logger: Logger;
  settings: ExportSettings;
  observer?: ExportObserver;
}

/** Progress saved in the job between steps; everything needed to resume. */
export interface ExportCheckpoint {
  runId: string;
  /** Fresh runs started because the data moved. */
  restarts: number;
  startedAt: string;
  /** Window totals seen on the run's pages (datasets with totals). */
  totals?: Record<string, unknown>;
  requests: number;
  /** Position after the last loaded batch. */
  offset: number;
  /** Cursor after the last loaded batch. */
  cursor?: string;
  rows: number;
  pages: number;
  /** Waits for a fanout source run so far. */
  sourceWaits?: number;
  /** Findings to record with the run's first batch (why it started over). */
  carried?: Finding[];
}

export interface ExportTask extends ExportWindow {
  /** Run id of the first attempt; a restart after instability appends `.rN`. */
  runId: string;
  kind: WindowKind;
  checkpoint?: ExportCheckpoint;
}

export type ExportOutcome =
  | { kind: 'complete'; runId: string; rows: number; pages: number; requests: number }
  /** `for`: what the window waits for: the shared request budget, or its fanout source's run. */
  | { kind: 'waiting'; waitMs: number; for: WaitingFor; checkpoint: ExportCheckpoint };

/** Why a window's job is delayed, kept in its progress so a follower can say so. */
export type WaitingFor = 'budget' | 'source';

export interface ExportHooks {
  checkpoint(checkpoint: ExportCheckpoint): Promise<void>;
  progress?(checkpoint: ExportCheckpoint): Promise<void> | void;
}
