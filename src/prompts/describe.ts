/** How failures and durations read in a prompt's `error` (stored, so secrets are scrubbed). */
import { InvalidRequestError } from '../api/index.js';
import { redactSecrets } from '../logger.js';

/** One line naming the error; a 400 keeps just the server's words (its class says nothing more). */
export function errorText(err: unknown): string {
  if (err instanceof InvalidRequestError) return redactSecrets(err.message);
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return redactSecrets(text.split('\n')[0] ?? text);
}

/** `850 ms`, `42 s`, `15 min`, `2 h`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}
