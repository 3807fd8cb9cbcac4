/**
 * Options of the emulator, and their resolution: defaults filled in, every value checked once at
 * creation (a bad value throws a RangeError naming the option).
 */
import type { FastifyServerOptions } from 'fastify';
import type { RateLimit } from '../../config/durations.js';
import { resolveAnalyticsKnobs, type AnalyticsKnobs, type ResolvedAnalyticsKnobs } from './analytics-knobs.js';
import { defaultPathCount } from './compute-window.js';
import { ROUTE_NAMES, type FaultRates, type ResolvedFaultRates } from './faults.js';

/** The analytics knobs (item counts, order, approximate counts, extra fields…) are in AnalyticsKnobs. */
export interface EmulatorOptions extends AnalyticsKnobs {
  /** Seed of all synthetic data (analytics, jobs) and of random faults. @default 42 */
  seed?: number;
  /**
   * Number of paths of a window. Receives the dates as the client sent them.
   * @default defaultPathCount: the number ending a project id like `bench-100000`, else ~1200 × (1 + ln(days))
   */
  pathsFor?: (projectId: string, dateFrom: string, dateTo: string) => number;
  /**
   * Computed windows kept for paging (least recently used are dropped). Enough for the windows an
   * export works on at once; paging a window that was dropped recomputes it.
   * @default 16
   */
  windowCacheSize?: number;
  /** Rows the window cache may hold in all (16 bytes each); the newest window is always kept. @default 4000000 */
  windowCacheRows?: number;
  /** Seeded agent jobs `job-1` … `job-N` in every project. @default 500 */
  jobsPerProject?: number;
  /** Time an agent job stays `active` after a message or a create (the mean when jittered). @default 1000 */
  agentTimeMs?: number;
  /**
   * Spread of run times: each run lasts agentTimeMs × (1 ± this), drawn uniformly and
   * reproducibly per (seed, project, job, run). @default 0
   */
  agentTimeJitter?: number;
  /**
   * A message is processed asynchronously (as the spec allows): its run starts this long after
   * the POST, and until then the job, and the POST's own answer, show its previous state. @default 0
   */
  pickupDelayMs?: number;
  /**
   * Whether creates spend the project's message budget (`shared`, the safe reading of the spec)
   * or a budget of their own of the same size (`separate`). @default 'shared'
   */
  createBudget?: 'shared' | 'separate';
  /** Analytics budget of the whole organization (all projects), in fixed windows; null = unlimited. @default null */
  analyticsRate?: RateLimit | null;
  /** Message budget per project, in fixed windows; null = unlimited. @default null */
  messageRate?: RateLimit | null;
  /** Added to every response. @default 0 */
  latencyMs?: number;
  /** Random faults; see `FaultRates`. @default none */
  faults?: FaultRates;
  /** `Retry-After` of injected 429s. @default 1 */
  retryAfterSeconds?: number;
  /** The one accepted key; by default any `mint_…` bearer key is accepted. @default undefined */
  apiKey?: string;
  /** Fastify logger options; off by default so benchmarks measure the emulator, not logging. @default false */
  logger?: FastifyServerOptions['logger'];
  /** Clock for rate-limit windows and agent runs (tests can move time). @default Date.now */
  now?: () => number;
}

export interface ResolvedEmulatorOptions extends ResolvedAnalyticsKnobs {
  seed: number;
  pathsFor: (projectId: string, dateFrom: string, dateTo: string) => number;
  windowCacheSize: number;
  windowCacheRows: number;
  jobsPerProject: number;
  agentTimeMs: number;
  agentTimeJitter: number;
  pickupDelayMs: number;
  createBudget: 'shared' | 'separate';
  analyticsRate: RateLimit | null;
  messageRate: RateLimit | null;
  latencyMs: number;
  faults: ResolvedFaultRates;
  retryAfterSeconds: number;
  apiKey: string | undefined;
  logger: FastifyServerOptions['logger'];
  now: () => number;
}

export function resolveEmulatorOptions(options: EmulatorOptions = {}): ResolvedEmulatorOptions {
  const pathsFor = options.pathsFor ?? defaultPathCount;
  return {
    ...resolveAnalyticsKnobs(options),
    seed: integer('seed', options.seed ?? 42, -(2 ** 31), 2 ** 32),
    pathsFor,
    windowCacheSize: integer('windowCacheSize', options.windowCacheSize ?? 16, 1, 1000),
    windowCacheRows: integer('windowCacheRows', options.windowCacheRows ?? 4_000_000, 1, Number.MAX_SAFE_INTEGER),
    jobsPerProject: integer('jobsPerProject', options.jobsPerProject ?? 500, 0, 1e9),
    agentTimeMs: nonNegative('agentTimeMs', options.agentTimeMs ?? 1000),
    agentTimeJitter: share('agentTimeJitter', options.agentTimeJitter ?? 0),
    pickupDelayMs: nonNegative('pickupDelayMs', options.pickupDelayMs ?? 0),
    createBudget: oneOf('createBudget', options.createBudget ?? 'shared', ['shared', 'separate'] as const),
    analyticsRate: rate('analyticsRate', options.analyticsRate ?? null),
    messageRate: rate('messageRate', options.messageRate ?? null),
    latencyMs: nonNegative('latencyMs', options.latencyMs ?? 0),
    faults: resolveFaultRates(options.faults ?? {}),
    retryAfterSeconds: integer('retryAfterSeconds', options.retryAfterSeconds ?? 1, 0, 86_400),
    apiKey: options.apiKey,
    logger: options.logger ?? false,
    now: options.now ?? Date.now,
  };
}

/** Fills in and checks fault rates (also used by `control.setFaults`). */
export function resolveFaultRates(rates: FaultRates): ResolvedFaultRates {
  const resolved: ResolvedFaultRates = {
    serverErrorRate: share('faults.serverErrorRate', rates.serverErrorRate ?? 0),
    rateLimitRate: share('faults.rateLimitRate', rates.rateLimitRate ?? 0),
    resetRate: share('faults.resetRate', rates.resetRate ?? 0),
    malformedRate: share('faults.malformedRate', rates.malformedRate ?? 0),
    slowRate: share('faults.slowRate', rates.slowRate ?? 0),
    slowMs: nonNegative('faults.slowMs', rates.slowMs ?? 2000),
    afterProcessingRate: share('faults.afterProcessingRate', rates.afterProcessingRate ?? 0.5),
    routes: [...(rates.routes ?? ROUTE_NAMES)],
  };
  const sum = resolved.serverErrorRate + resolved.rateLimitRate + resolved.resetRate + resolved.malformedRate + resolved.slowRate;
  if (sum > 1 + 1e-9) throw new RangeError(`faults: the rates add up to ${sum}; at most 1`);
  for (const route of resolved.routes) {
    if (!ROUTE_NAMES.includes(route)) throw new RangeError(`faults.routes: unknown route ${String(route)}`);
  }
  return resolved;
}

function integer(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${value}`);
  }
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a number ≥ 0, got ${value}`);
  return value;
}

function share(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0 || value > 1) throw new RangeError(`${name} must be between 0 and 1, got ${value}`);
  return value;
}

function oneOf<T extends string>(name: string, value: T, allowed: readonly T[]): T {
  if (!allowed.includes(value)) throw new RangeError(`${name} must be one of ${allowed.join(', ')}, got ${String(value)}`);
  return value;
}

function rate(name: string, value: RateLimit | null): RateLimit | null {
  if (value === null) return null;
  integer(`${name}.limit`, value.limit, 1, Number.MAX_SAFE_INTEGER);
  if (!Number.isFinite(value.windowMs) || value.windowMs <= 0) throw new RangeError(`${name}.windowMs must be > 0`);
  return { limit: value.limit, windowMs: value.windowMs };
}
