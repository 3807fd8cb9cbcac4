/**
 * Loads a run's validated rows in batches. A batch is stored in one insert, with its findings,
 * and the checkpoint moves past it only after both are stored. Without a budget at most one insert
 * runs while the next batch is fetched (loading overlaps fetching; memory holds two batches).
 */
import type { Dataset, Finding } from '../datasets/index.js';
import { insertBatchFindings, insertRowBatch, type RunWindow, type Warehouse } from '../warehouse/index.js';

export interface LoadedBatch {
  /** Position after the batch. */
  end: number;
  /** Cursor after the batch ('' for offset paging, END_CURSOR when nothing is left). */
  cursor: string;
  rows: number;
}

export class BatchLoader {
  #rows: Record<string, unknown>[] = [];
  #findings: Finding[] = [];
  #start: number;
  #inserting: Promise<void> | undefined;

  constructor(
    private readonly warehouse: Warehouse,
    private readonly dataset: Dataset,
    private readonly run: RunWindow,
    start: number,
    private readonly onLoaded: (batch: LoadedBatch) => Promise<void>,
  ) {
    this.#start = start;
  }

  get pendingRows(): number {
    return this.#rows.length;
  }

  add(rows: readonly Record<string, unknown>[], findings: readonly Finding[]): void {
    for (const row of rows) this.#rows.push(row);
    for (const finding of findings) this.#findings.push(finding);
  }

  /** Stores what was added, up to position `end` with cursor `cursor`; waits for it when `wait`. */
  async flush(end: number, cursor: string, wait: boolean): Promise<void> {
    await this.settle();
    const rows = this.#rows;
    const findings = this.#findings;
    const batch = { ...this.run, batchOffset: this.#start, batchEnd: end };
    this.#rows = [];
    this.#findings = [];
    this.#start = end;
    const work = (async () => {
      if (rows.length > 0) {
        await insertRowBatch(this.warehouse, { ...batch, table: this.dataset.table, batchCursor: cursor, rows });
      }
      if (findings.length > 0) await insertBatchFindings(this.warehouse, batch, findings);
      await this.onLoaded({ end, cursor, rows: rows.length });
    })();
    work.catch(() => {}); // awaited by the next flush or settle(); this only marks it handled
    this.#inserting = work;
    if (wait) await this.settle();
  }

  /** Waits for the insert in flight, if any (rethrowing its error). */
  async settle(): Promise<void> {
    const inserting = this.#inserting;
    this.#inserting = undefined;
    if (inserting) await inserting;
  }
}
