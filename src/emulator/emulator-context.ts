/** Everything a route handler needs, built once per emulator. */
import type { AgentJobStore } from './agent-job-store.js';
import type { EmulatorCounters } from './emulator-counters.js';
import type { ResolvedEmulatorOptions } from './emulator-options.js';
import type { FaultScript, RandomFaults } from './faults.js';
import type { FixedWindowLimiter } from './fixed-window-limiter.js';
import type { ReceivedCreate, ReceivedMessage } from './received-message.js';
import type { Sleeper } from './sleeper.js';
import type { WindowStore } from './window-store.js';

export interface EmulatorContext {
  options: ResolvedEmulatorOptions;
  counters: EmulatorCounters;
  messages: ReceivedMessage[];
  creates: ReceivedCreate[];
  windows: WindowStore;
  jobs: AgentJobStore;
  script: FaultScript;
  randomFaults: RandomFaults;
  analyticsLimiter: FixedWindowLimiter | null;
  messageLimiter: FixedWindowLimiter | null;
  /** The message limiter itself when creates share it. */
  createLimiter: FixedWindowLimiter | null;
  sleeper: Sleeper;
}

/** A route's result before faults are applied. */
export interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** The API's error shape: `{ error, details?: [{ message }] }`. */
export function errorAnswer(status: number, error: string, details?: string[], headers?: Record<string, string>): Answer {
  const body = details ? { error, details: details.map((message) => ({ message })) } : { error };
  return headers ? { status, body, headers } : { status, body };
}

/** A 429; `retryAfter` in seconds, or a header text as written (a scripted hostile hint). */
export function rateLimitedAnswer(retryAfter: number | string, error = 'Rate limit exceeded'): Answer {
  return errorAnswer(429, error, undefined, { 'retry-after': String(retryAfter) });
}

/** The spec's 400 for query parameters, every problem listed. */
export function invalidQuery(details: string[]): Answer {
  return errorAnswer(400, 'Invalid query parameters', details);
}
