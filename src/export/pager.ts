/**
 * Where the next page is, for each kind of pagination. The position counts what was received so
 * far — rows for offset and cursor paging (the offset is the number of rows to skip, so it
 * advances by the rows received, never by the limit), ids for fanout — and is what batches and
 * checkpoints record. Pure: no I/O here.
 */
import type { Dataset, PageView } from '../datasets/index.js';
import { PaginationError } from './errors.js';

export interface PagerState {
  /** Rows (or fanout ids) received before the next page. */
  position: number;
  /** Cursor of the next page (cursor paging), else null. */
  cursor: string | null;
}

export interface PageRequest {
  endpoint: string;
  params: Record<string, string>;
  /** Position this request starts at. */
  position: number;
  /** The fanout id asked for. */
  id?: string;
}

export interface PageStep {
  state: PagerState;
  done: boolean;
}

/** Marks, in a batch's cursor column, a batch after which nothing is left to fetch. */
export const END_CURSOR = '\u0001end';

export class Pager {
  readonly #dataset: Dataset;
  readonly #window: { dateFrom: string; dateTo: string };
  readonly #ids: readonly string[];

  constructor(dataset: Dataset, window: { dateFrom: string; dateTo: string }, ids: readonly string[] = []) {
    this.#dataset = dataset;
    this.#window = window;
    this.#ids = ids;
  }

  /** Pages may be fetched ahead of the one being consumed (only offsets are known in advance). */
  get canFetchAhead(): boolean {
    return this.#dataset.pagination.kind === 'offset';
  }

  /** Items per request, as large as the endpoint allows (undefined: the endpoint takes no limit). */
  get limit(): number | undefined {
    const p = this.#dataset.pagination;
    return p.kind === 'fanout' ? undefined : p.limit;
  }

  /** Whether there is anything to fetch at all from `state` (a fanout past its last id has not). */
  hasWork(state: PagerState): boolean {
    return this.#dataset.pagination.kind !== 'fanout' || state.position < this.#ids.length;
  }

  request(state: PagerState): PageRequest {
    const p = this.#dataset.pagination;
    const dates = { dateFrom: this.#window.dateFrom, dateTo: this.#window.dateTo };
    switch (p.kind) {
      case 'offset':
        return { endpoint: this.#dataset.endpoint, params: { ...dates, limit: String(p.limit), offset: String(state.position) }, position: state.position };
      case 'cursor':
        return {
          endpoint: this.#dataset.endpoint,
          params: { ...dates, limit: String(p.limit), ...(state.cursor === null ? {} : { cursor: state.cursor }) },
          position: state.position,
        };
      case 'single':
        return { endpoint: this.#dataset.endpoint, params: { ...dates, ...(p.limit ? { limit: String(p.limit) } : {}) }, position: state.position };
      case 'fanout': {
        const id = this.#ids[state.position]!;
        return { endpoint: p.endpointFor(id), params: {}, position: state.position, id };
      }
    }
  }

  /** The state after a page of `rows` items at `state`. */
  next(state: PagerState, page: PageView<unknown>): PageStep {
    const p = this.#dataset.pagination;
    const rows = page.items.length;
    switch (p.kind) {
      case 'offset':
        return { state: { position: state.position + rows, cursor: null }, done: !page.hasMore };
      case 'cursor': {
        const cursor = page.nextCursor ?? null;
        const done = p.until === 'hasMore' ? !page.hasMore : cursor === null;
        if (!done && cursor === null) throw new PaginationError(`page at position ${state.position} says hasMore: true but has no nextCursor`);
        return { state: { position: state.position + rows, cursor: done ? null : cursor }, done };
      }
      case 'single':
        return { state: { position: state.position + rows, cursor: null }, done: true };
      case 'fanout':
        return { state: { position: state.position + 1, cursor: null }, done: state.position + 1 >= this.#ids.length };
    }
  }
}
