import type { Logger } from '../logger.js';
import type { ApiEvent } from './api-event.js';
import type { RetryPolicy } from './retry-policy.js';

export interface MintlifyClientOptions {
  /** API origin (a path prefix is kept), e.g. `https://api.mintlify.com`. */
  baseUrl: string;
  /** Admin key (`mint_…`), sent as `Authorization: Bearer`; never logged nor put in errors. */
  apiKey: string;
  /** Per-attempt limit, from sending until the whole body is read. @default 30000 */
  timeoutMs?: number;
  /** Largest response body read; a larger one is an InvalidResponseError, never retried. @default 67108864 (64 MiB) */
  maxBodyBytes?: number;
  /** Overrides of the default policy. @default DEFAULT_RETRY_POLICY (6 attempts, 500 ms base, 30 s cap, 300 s total) */
  retry?: Partial<RetryPolicy>;
  /** Wait assumed for a 429 without a usable Retry-After. @default 60000 */
  defaultRetryAfterMs?: number;
  /**
   * Longest wait a server's Retry-After may ask for; a longer one is capped to it and logged as a
   * finding (`retry_after_capped`). @default 3600000 (the default budget window)
   */
  maxRetryAfterMs?: number;
  /** Debug line per attempt, warn per retry. @default a disabled logger */
  logger?: Logger;
  /** Called once per attempt (metrics). An exception in it is logged, never fails the call. */
  onEvent?: (event: ApiEvent) => void;
}

export interface CallOptions {
  /** Aborts the call, including a wait between attempts; rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Overrides for this call; `false` = exactly one attempt (the caller handles waiting). */
  retry?: Partial<RetryPolicy> | false;
  /**
   * Awaited before every attempt, with its 1-based number (e.g. to take a token of a shared
   * request budget). An error it throws propagates unchanged and is never retried.
   */
  beforeAttempt?: (attempt: number) => Promise<void>;
  /**
   * Awaited after an attempt that failed before any connection was made (refused, DNS, invalid
   * address: the server cannot have seen it), e.g. to give back the budget slot it took.
   */
  onNotSent?: (attempt: number) => Promise<void>;
  /**
   * Awaited after an attempt the server may have seen: answered (whatever the status) or failed
   * after a connection was made, e.g. to count its budget slot from its answer. An error it
   * throws is logged, never fails the call.
   */
  afterAttempt?: (attempt: number) => Promise<void>;
  /**
   * Awaited on every 429, with the wait it asks for (e.g. to pause a shared budget). An error it
   * throws propagates unchanged.
   */
  onRateLimited?: (retryAfterMs: number) => void | Promise<void>;
  /**
   * Logger for this call's lines, e.g. a queue job's child logger, so they carry its queue, job id
   * and window or prompt. @default the client's logger
   */
  logger?: Logger;
}
