/**
 * Why the warehouse cannot be opened. Each class is a decision for the caller: a locked embedded
 * directory means "stop the other process or point at a server", not "retry".
 */
import { MintpipeError } from '../errors.js';

/**
 * A stop signal came while this process waited for another one to let go of the embedded directory:
 * the stop it asked for, not a failure (exit code 0).
 */
export class WarehouseWaitStoppedError extends MintpipeError {
  override name = 'WarehouseWaitStoppedError';
  override exitCode = 0;
  constructor(reason: unknown, holderPid: number | undefined, options?: { cause?: unknown }) {
    super(`stopped (${typeof reason === 'string' ? reason : 'signal'}) while waiting for the embedded warehouse, in use by ${holderPid === undefined ? 'another process' : `pid ${holderPid}`}`, options);
  }
}

/** Another process holds the embedded warehouse directory (the engine allows one process per directory). */
export class WarehouseLockedError extends MintpipeError {
  override name = 'WarehouseLockedError';
  constructor(
    readonly path: string,
    /** Undefined when the engine refused before any holder could be named (one starting or stopping). */
    readonly holderPid: number | undefined,
    options?: { cause?: unknown; waitedMs?: number },
  ) {
    super(
      `the embedded warehouse at ${path} is in use by another ${holderPid === undefined ? 'process' : `mintpipe process (pid ${holderPid})`}` +
        `${options?.waitedMs ? ` (gave up after waiting ${Math.round(options.waitedMs / 1000)}s)` : ''}; stop it or set CLICKHOUSE_URL`,
      options,
    );
  }
}

/**
 * This process already has an embedded warehouse open at another directory: the engine binds a
 * process to one data directory until every connection to it is closed.
 */
export class WarehouseProcessBoundError extends MintpipeError {
  override name = 'WarehouseProcessBoundError';
  constructor(
    readonly path: string,
    readonly openPath: string,
  ) {
    super(
      `cannot open the embedded warehouse at ${path}: this process already has the one at ${openPath} open (one data directory per process); close it first`,
    );
  }
}

/** A query asked of a warehouse that is closed or closing: its owner went on after close(). */
export class WarehouseClosedError extends MintpipeError {
  override name = 'WarehouseClosedError';
  constructor(readonly title: string) {
    super(`${title} is closed: no query runs on it after close()`);
  }
}

/** The ClickHouse server cannot be used: unreachable, refused the credentials, or failed to set up. */
export class WarehouseUnavailableError extends MintpipeError {
  override name = 'WarehouseUnavailableError';
  constructor(
    readonly location: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`the ClickHouse server at ${location} cannot be used: ${reason}; check CLICKHOUSE_URL and its credentials`, options);
  }
}

/**
 * A run was about to be marked complete with fewer (or more) stored rows than it loaded: a batch
 * went missing (for instance dropped as a replay of a pruned run's batch). Publishing it would show
 * a window with gaps, so the run stays invisible; export it again under a new run id.
 */
export class RunRowsMismatchError extends MintpipeError {
  override name = 'RunRowsMismatchError';
  constructor(
    readonly runId: string,
    readonly expectedRows: number,
    readonly storedRows: number,
  ) {
    super(`run ${runId}: ${storedRows} rows stored but ${expectedRows} loaded; not marking it complete`);
  }
}
