/**
 * A request budget shared by every worker through Redis: at most `limit` requests in ANY span of
 * `windowMs` (a sliding window), which also keeps under a server that counts fixed windows. A 429
 * caused by someone else pauses the whole budget until its Retry-After has passed.
 *
 * A request counts from its grant until a window after its answer (`settle`), not a window after
 * its grant: the server counts it when it arrives, which can be any time before the answer (a
 * stalled event loop, a slow connection). Until settled, a grant counts as in flight for at most
 * `inFlightMs` (the request timeout), so a taker that dies mid-request holds its slot no longer.
 *
 * Callers never sleep on it: `tryTake()` either grants one request now or says how long to wait,
 * so a queue job can delay itself and free its worker slot.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RateLimit } from '../../config/index.js';

// Time comes from Redis (TIME) so workers on machines with skewed clocks agree.
const TAKE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local paused = tonumber(redis.call('GET', KEYS[2]) or '0')
if paused > now then return paused - now end
local span = tonumber(ARGV[2])
local inFlight = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - span)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  -- Scored at the latest time it may still be answered; settle moves it to its answer.
  redis.call('ZADD', KEYS[1], now + inFlight, ARGV[3])
  if redis.call('PTTL', KEYS[1]) < span + inFlight then redis.call('PEXPIRE', KEYS[1], span + inFlight) end
  return 0
end
-- A slot still in flight frees a window after its answer at the earliest: look again then.
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, math.min(tonumber(oldest[2]), now) + span - now)
`;

const SETTLE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', now, ARGV[1])
return 0
`;

const PAUSE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local untilMs = now + tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if untilMs > current then redis.call('SET', KEYS[1], untilMs, 'PX', tonumber(ARGV[1])) end
return untilMs
`;

const USAGE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[1]))
local paused = tonumber(redis.call('GET', KEYS[2]) or '0')
return { redis.call('ZCARD', KEYS[1]), math.max(0, paused - now) }
`;

/**
 * The longest pause when pacing is off (no window to bound it): an hour, the default window. The
 * API client caps a server's Retry-After too; this keeps any caller from storing more.
 */
const DEFAULT_MAX_PAUSE_MS = 3_600_000;

/** `slot`: the grant's entry in the shared record, for `giveBack` (absent with pacing off). */
export type TakeResult = { granted: true; slot?: string } | { granted: false; waitMs: number };

export interface BudgetUsage {
  used: number;
  limit: number | null;
  windowMs: number | null;
  pausedForMs: number;
}

export interface RequestBudgetOptions {
  /**
   * Redis key prefix, e.g. `mintpipe:budget:analytics`. Its keys are `{<key>}:taken` and
   * `{<key>}:paused-until`: the hash tag puts both in one cluster slot, as the scripts need.
   */
  key: string;
  /** The limit; null turns pacing off (only a 429 pause holds requests back). */
  rate: RateLimit | null;
  /**
   * Extra time a request keeps its slot, absorbing network jitter between our clock and the
   * server's count. @default 2% of the window, between 50 ms and 1 s
   */
  marginMs?: number;
  /** The longest a granted request may go unanswered (the request timeout). @default 30000 */
  inFlightMs?: number;
}

export class RequestBudget {
  readonly rate: RateLimit | null;
  private readonly spanMs: number;

  constructor(
    private readonly redis: Redis,
    private readonly options: RequestBudgetOptions,
  ) {
    this.rate = options.rate;
    const windowMs = options.rate?.windowMs ?? 0;
    this.spanMs = windowMs + (options.marginMs ?? Math.min(1000, Math.max(50, Math.round(windowMs * 0.02))));
  }

  get limited(): boolean {
    return this.rate !== null;
  }

  /** Grants one request now, or returns how long until one may be granted. */
  async tryTake(): Promise<TakeResult> {
    if (!this.rate) {
      // Pacing is off, but a 429 from upstream still pauses everyone until its Retry-After.
      const pausedForMs = await this.redis.pttl(this.pauseKey);
      return pausedForMs > 0 ? { granted: false, waitMs: pausedForMs } : { granted: true };
    }
    const slot = randomUUID();
    const inFlightMs = this.options.inFlightMs ?? 30_000;
    const waitMs = Number(await this.redis.eval(TAKE_SCRIPT, 2, this.zsetKey, this.pauseKey, this.rate.limit, this.spanMs, slot, inFlightMs));
    return waitMs <= 0 ? { granted: true, slot } : { granted: false, waitMs };
  }

  /**
   * Returns a granted slot whose request never reached the upstream (no connection was made): it
   * did not use the server's budget, so it does not use ours. Giving back after the fact (rather
   * than taking once connected, which fetch cannot tell) is safe under concurrency: in between, the
   * slot only made another taker wait, never let one exceed the limit.
   */
  async giveBack(slot: string | undefined): Promise<void> {
    if (slot === undefined || !this.rate) return;
    await this.redis.zrem(this.zsetKey, slot);
  }

  /**
   * Counts a granted slot from now: its request was answered (or failed after it may have reached
   * the server). Best effort: when Redis cannot be reached the slot keeps counting as in flight,
   * which only ever holds back more, so the caller's request does not fail for it.
   */
  async settle(slot: string | undefined): Promise<void> {
    if (slot === undefined || !this.rate) return;
    try {
      await this.redis.eval(SETTLE_SCRIPT, 1, this.zsetKey, slot);
    } catch {
      // Still in flight until inFlightMs: conservative.
    }
  }

  /** The longest pause stored: the budget's window (a longer wait would outlast the budget it protects). */
  get maxPauseMs(): number {
    return this.rate?.windowMs ?? DEFAULT_MAX_PAUSE_MS;
  }

  /**
   * Stops every taker of this budget for `ms` (a 429 from upstream: someone else used it), at most
   * `maxPauseMs`: the pause survives restarts, so an absurd hint must not be stored as it is.
   */
  async pause(ms: number): Promise<void> {
    const boundedMs = Math.min(Number.isFinite(ms) ? Math.max(1, Math.ceil(ms)) : this.maxPauseMs, this.maxPauseMs);
    await this.redis.eval(PAUSE_SCRIPT, 1, this.pauseKey, boundedMs);
  }

  async usage(): Promise<BudgetUsage> {
    if (!this.rate) {
      const pausedForMs = Math.max(0, await this.redis.pttl(this.pauseKey));
      return { used: 0, limit: null, windowMs: null, pausedForMs };
    }
    const [used, pausedForMs] = (await this.redis.eval(USAGE_SCRIPT, 2, this.zsetKey, this.pauseKey, this.spanMs)) as [number, number];
    return { used: Number(used), limit: this.rate.limit, windowMs: this.rate.windowMs, pausedForMs: Number(pausedForMs) };
  }

  private get zsetKey(): string {
    return `${this.slot}:taken`;
  }

  private get pauseKey(): string {
    return `${this.slot}:paused-until`;
  }

  /** The key in a hash tag, unless it carries one already. */
  private get slot(): string {
    return /\{[^}]+\}/.test(this.options.key) ? this.options.key : `{${this.options.key}}`;
  }
}

/** The organization-wide analytics budget (all analytics endpoints share it). */
export function analyticsBudget(redis: Redis, prefix: string, rate: RateLimit | null, inFlightMs?: number): RequestBudget {
  return new RequestBudget(redis, { key: `${prefix}:budget:analytics`, rate, inFlightMs });
}

/** The per-project message budget. */
export function messageBudget(redis: Redis, prefix: string, projectId: string, rate: RateLimit | null, inFlightMs?: number): RequestBudget {
  return new RequestBudget(redis, { key: `${prefix}:budget:messages:${encodeURIComponent(projectId)}`, rate, inFlightMs });
}
