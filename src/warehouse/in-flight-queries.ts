/**
 * The queries an engine has started and not yet seen settle, so that its close can wait for them
 * (bounded), stop the rest and refuse new ones. The embedded engine closed under a running query
 * defers its teardown until that query ends, and the process cannot exit before then: a query
 * nobody stops keeps a stopping mintpipe alive for as long as it runs.
 */
import type { Logger } from '../logger.js';

/** How long an engine's close waits for the queries still running. */
export interface CloseWait {
  /** Time the running queries get to finish on their own before they are stopped. */
  settleMs: number;
  /** Time the stopped queries get to end; after it the engine closes anyway. */
  stopMs: number;
}

/**
 * Both within STOP_AFTER_GRACE_MS (src/cli/run-until-signal.ts), the time a stopping command
 * gives the rest of its runtime after the workers' grace period.
 */
export const DEFAULT_CLOSE_WAIT: CloseWait = { settleMs: 250, stopMs: 500 };

/** How often a stop is sent again while stopped queries run on: one that had not reached the engine yet is caught by the next. */
const STOP_AGAIN_MS = 100;

interface Entry {
  /** The `log_comment` its statements carry, by which the engine finds them to stop. */
  marker: string;
  /** Settles (never rejects) once it ended. */
  ended: Promise<void>;
  /** Lets go of it when the engine closes with it still running (a session closed under its owner). */
  abandon?: () => void;
}

export class InFlightQueries {
  private readonly running = new Set<Entry>();
  private closing = false;

  /** `refusal` is the error a query started after close() gets. */
  constructor(private readonly refusal: () => Error) {}

  /** How many are running. */
  get size(): number {
    return this.running.size;
  }

  /** From now on every query is refused. */
  refuse(): void {
    this.closing = true;
  }

  /** Throws the refusal once the engine is closing. */
  assertOpen(): void {
    if (this.closing) throw this.refusal();
  }

  /** The markers of what is running, each once. */
  markers(): string[] {
    return [...new Set([...this.running].map((e) => e.marker))];
  }

  /** Runs `query`, counted under `marker` until it settles; refused (rejected) once closing. */
  run<T>(marker: string, query: () => Promise<T>): Promise<T> {
    let result: Promise<T>;
    try {
      this.assertOpen();
      result = query();
    } catch (err) {
      return Promise.reject(err);
    }
    this.count(marker, result);
    return result;
  }

  /** Counts something running under `marker` (a read-only session, open until it closes) until `ended` settles. */
  count(marker: string, ended: Promise<unknown>, abandon?: () => void): void {
    const entry: Entry = { marker, ended: ended.then(noop, noop), abandon };
    this.running.add(entry);
    void entry.ended.then(() => this.running.delete(entry));
  }

  /**
   * Refuses new queries, gives the running ones `wait.settleMs` to end, then `stop`s the rest
   * (again every STOP_AGAIN_MS) for up to `wait.stopMs`. Never waits longer: whatever still runs
   * is named in one warning, let go of (`abandon`) and left to the engine.
   */
  async close(stop: (markers: string[]) => Promise<void>, wait: CloseWait, logger: Logger | undefined, at: string): Promise<void> {
    this.refuse();
    if (await this.endedWithin(wait.settleMs)) return;
    const running = this.size;
    const deadline = Date.now() + wait.stopMs;
    do {
      // A stop that fails (the engine already going) leaves the bounded wait to end it.
      const markers = this.markers();
      if (markers.length > 0) await stop(markers).catch(noop);
    } while (!(await this.endedWithin(Math.min(STOP_AGAIN_MS, deadline - Date.now()))) && Date.now() < deadline);
    logger?.warn(
      { event: 'warehouse.close_in_flight', location: at, running, left: this.size, settleMs: wait.settleMs, stopMs: wait.stopMs },
      this.size === 0 ? 'queries still running at close were stopped' : 'closing with queries still running: the process may not exit before they end',
    );
    for (const entry of this.running) entry.abandon?.();
  }

  /** True once nothing runs, false when `ms` passed first. */
  private async endedWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), Math.max(0, ms));
    });
    try {
      while (this.size > 0) {
        const ended = await Promise.race([Promise.all([...this.running].map((e) => e.ended)).then(() => true), timeout]);
        if (!ended) return false;
      }
      return true;
    } finally {
      clearTimeout(timer);
    }
  }
}

function noop(): void {}
