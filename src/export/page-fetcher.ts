/**
 * Fetches a window's pages, each request paid for with a slot of the shared budget first, and
 * counts the requests that left the machine. Offset pages may be fetched ahead of the one consumed
 * when the budget is off; under a budget exactly one page is in flight.
 */
import type { MintlifyClient } from '../api/index.js';
import type { Dataset } from '../datasets/index.js';
import { schemaOf } from '../datasets/dataset-schema.js';
import type { Logger } from '../logger.js';
import type { RequestBudget } from '../queue/request-budget.js';
import { BudgetWaitError } from './errors.js';
import type { PageRequest, Pager, PagerState } from './pager.js';

/** A page's answer or its error; never rejects, so pages fetched ahead need no handler. */
export type Settled = { ok: true; body: unknown; repaired: string[] } | { ok: false; error: unknown };

export interface PageFetcherOptions {
  client: MintlifyClient;
  budget: RequestBudget;
  dataset: Dataset;
  pager: Pager;
  projectId: string;
  log: Logger;
  /** No more pages are launched after this many. */
  maxPages: number;
  /** Pages in flight at once when the budget is off and offsets are known in advance. */
  prefetchPages: number;
}

export class PageFetcher {
  readonly #o: PageFetcherOptions;
  /** Pages in flight, keyed by position. */
  readonly #inflight = new Map<number, Promise<Settled>>();
  readonly #concurrency: number;
  #requests: number;
  #step: number;
  #ahead: number;
  #launched = 0;
  #consumed = 0;

  /** Starts at `position`, with `requests` already spent by the run. */
  constructor(options: PageFetcherOptions, start: { position: number; requests: number }) {
    this.#o = options;
    this.#concurrency = options.budget.limited || !options.pager.canFetchAhead ? 1 : options.prefetchPages;
    this.#requests = start.requests;
    this.#step = options.pager.limit ?? 1;
    this.#ahead = start.position;
  }

  /** Requests the run has sent so far (those that never left the machine are not counted). */
  get requests(): number {
    return this.#requests;
  }

  /** Pages in flight now. */
  get inflight(): number {
    return this.#inflight.size;
  }

  /** The page at `state`, launched now or taken from those fetched ahead; undefined once the page cap stopped launching. */
  next(state: PagerState): Promise<Settled> | undefined {
    this.#launch(state);
    const page = this.#inflight.get(state.position);
    this.#inflight.delete(state.position);
    return page;
  }

  /** A page was consumed: the number fetched ahead grows with the pages seen. */
  consumed(): void {
    this.#consumed++;
  }

  /**
   * A short offset page moved the offsets: pages fetched ahead at offsets it made wrong are dropped
   * (their answers are ignored; they settle on their own) and the next ones step by its size.
   * Returns how many were dropped.
   */
  shortPage(nextPosition: number, items: number): number {
    const dropped = this.#inflight.size > 0 && !this.#inflight.has(nextPosition) ? this.#inflight.size : 0;
    if (dropped > 0) this.#inflight.clear();
    this.#step = items;
    this.#ahead = nextPosition;
    return dropped;
  }

  /** Waits for the pages still in flight (past the end or past a budget stop); they are not consumed. */
  async settle(): Promise<void> {
    await Promise.allSettled(this.#inflight.values());
  }

  // Slow start: the window's size is unknown, so the number ahead grows with the pages seen
  // (1, 1, 2, 2, 3 …) up to its cap.
  #launch(state: PagerState): void {
    const { pager, maxPages } = this.#o;
    if (!pager.canFetchAhead) {
      if (this.#inflight.size === 0 && this.#launched < maxPages) {
        this.#inflight.set(state.position, this.#fetch(pager.request(state)));
        this.#launched++;
      }
      return;
    }
    const allowed = Math.min(this.#concurrency, 1 + Math.floor(this.#consumed / 2));
    this.#ahead = Math.max(this.#ahead, state.position);
    while (this.#inflight.size < allowed && this.#launched < maxPages) {
      this.#inflight.set(this.#ahead, this.#fetch(pager.request({ position: this.#ahead, cursor: null })));
      this.#ahead += this.#step;
      this.#launched++;
    }
  }

  #fetch(request: PageRequest): Promise<Settled> {
    const { client, budget, dataset, projectId, log } = this.#o;
    // This page's current attempt's slot: pages fetched ahead run at once, each with its own.
    let slot: string | undefined;
    return client
      .getAnalyticsPage(projectId, request.endpoint, request.params, schemaOf(dataset), {
        beforeAttempt: async () => {
          const take = await budget.tryTake();
          if (!take.granted) throw new BudgetWaitError(take.waitMs);
          slot = take.slot;
          this.#requests++;
        },
        // Never left the machine: neither the shared budget nor the run's request count used it.
        onNotSent: async () => {
          this.#requests--;
          await budget.giveBack(slot);
        },
        // The server counted it by its answer at the latest: the slot counts a window from there.
        afterAttempt: () => budget.settle(slot),
        logger: log,
        onRateLimited: async (retryAfterMs) => {
          // Someone else spent the organization's budget: hold every worker back, not just this one.
          await budget.pause(retryAfterMs);
          throw new BudgetWaitError(retryAfterMs);
        },
      })
      .then(
        (parsed): Settled => ({ ok: true, body: parsed.value, repaired: parsed.repaired }),
        (error: unknown): Settled => ({ ok: false, error }),
      );
  }
}
