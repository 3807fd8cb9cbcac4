/**
 * Fault injection: what can go wrong with one request, drawn at random (seeded) or scripted.
 *
 * Timing matters for the message POST, which is not idempotent. A fault `when: 'before'` happens
 * in front of the API (a gateway 502, a dropped connection): the request is not processed, not
 * counted against rate limits, and no message is recorded. A fault `when: 'after'` happens once
 * the request was fully processed: the message is in the log and the job is `active`, but the
 * client sees a 5xx or a reset — the ambiguous case. On GET routes the difference is only whether
 * the request consumed rate-limit budget.
 */

import { DATASET_NAMES, type DatasetName as AnalyticsDataset } from '../datasets/index.js';

/** The emulated operations: the analytics ones by dataset name, and the agent ones (`create` starts an agent job). */
export type RouteName = AnalyticsDataset | 'message' | 'job' | 'create';
export const ROUTE_NAMES: readonly RouteName[] = [...DATASET_NAMES, 'message', 'job', 'create'];

export type FaultTiming = 'before' | 'after';

/** One injected fault; a scripted request consumes exactly one. */
export type Fault =
  /** Answers `status` with `{ error }`. @default when 'before' */
  | { kind: 'status'; status: number; when?: FaultTiming; retryAfterSeconds?: number }
  /**
   * 429 `{ error }` with `Retry-After`, as if someone else spent the budget; always before.
   * `retryAfter` is the header as written, for hints no number spells (`99999999999999999999999`, `1.5`).
   * @default retryAfterSeconds the emulator's `retryAfterSeconds`
   */
  | { kind: 'rateLimit'; retryAfterSeconds?: number; retryAfter?: string }
  /** Destroys the connection with no response (needs a real connection: under `app.inject` it never answers). @default when 'before' */
  | { kind: 'reset'; when?: FaultTiming }
  /** Processes the request, then sends its answer as truncated JSON (same status). */
  | { kind: 'malformed' }
  /** Processes the request, then answers `body` instead (a string is sent as-is, as JSON). @default status 200 */
  | { kind: 'body'; body: unknown; status?: number }
  /** Waits `ms`, then carries on normally. @default when 'before' */
  | { kind: 'delay'; ms: number; when?: FaultTiming };

export type FaultKind = Fault['kind'];
export const FAULT_KINDS: readonly FaultKind[] = ['status', 'rateLimit', 'reset', 'malformed', 'body', 'delay'];

/**
 * Random faults per request. The rates are exclusive shares of requests (their sum must be ≤ 1):
 * each request gets at most one fault.
 */
export interface FaultRates {
  /** Share answered 500, 502 or 503 `{ error }`. @default 0 */
  serverErrorRate?: number;
  /** Share answered 429 with `Retry-After: retryAfterSeconds`. @default 0 */
  rateLimitRate?: number;
  /** Share whose connection is destroyed without a response. @default 0 */
  resetRate?: number;
  /** Share answered 200 with broken JSON (after processing). @default 0 */
  malformedRate?: number;
  /** Share delayed by `slowMs` before processing. @default 0 */
  slowRate?: number;
  /** Delay of a slow request. @default 2000 */
  slowMs?: number;
  /** Of the server errors and resets, the share that happens after processing (see the module doc). @default 0.5 */
  afterProcessingRate?: number;
  /** Routes that get random faults. @default all of them */
  routes?: RouteName[];
}

export type ResolvedFaultRates = Required<FaultRates>;

/** Draws random faults from a seeded generator, so a run with the same request order is reproducible. */
export class RandomFaults {
  constructor(
    private rates: ResolvedFaultRates,
    private readonly random: () => number,
  ) {}

  setRates(rates: ResolvedFaultRates): void {
    this.rates = rates;
  }

  draw(route: RouteName): Fault | undefined {
    const rates = this.rates;
    if (!rates.routes.includes(route)) return undefined;
    let u = this.random();
    if ((u -= rates.serverErrorRate) < 0) {
      const status = [500, 502, 503][Math.floor(this.random() * 3)]!;
      return { kind: 'status', status, when: this.timing() };
    }
    if ((u -= rates.rateLimitRate) < 0) return { kind: 'rateLimit' };
    if ((u -= rates.resetRate) < 0) return { kind: 'reset', when: this.timing() };
    if ((u -= rates.malformedRate) < 0) return { kind: 'malformed' };
    if ((u -= rates.slowRate) < 0) return { kind: 'delay', ms: rates.slowMs };
    return undefined;
  }

  private timing(): FaultTiming {
    return this.random() < this.rates.afterProcessingRate ? 'after' : 'before';
  }
}

/** Scripted faults: per route, a queue that the next matching requests consume in order. */
export class FaultScript {
  private readonly queues = new Map<RouteName, Fault[]>(ROUTE_NAMES.map((route) => [route, []]));

  add(route: RouteName, faults: readonly Fault[]): void {
    this.queues.get(route)!.push(...faults);
  }

  next(route: RouteName): Fault | undefined {
    return this.queues.get(route)!.shift();
  }

  pending(route: RouteName): number {
    return this.queues.get(route)!.length;
  }

  clear(): void {
    for (const queue of this.queues.values()) queue.length = 0;
  }
}

/** When a fault strikes: malformed and body faults need the processed answer, so they are always after. */
export function faultTiming(fault: Fault): FaultTiming {
  switch (fault.kind) {
    case 'rateLimit':
      return 'before';
    case 'malformed':
    case 'body':
      return 'after';
    default:
      return fault.when ?? 'before';
  }
}
