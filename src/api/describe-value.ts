import { redactSecrets } from '../logger.js';

const MAX_CHARS = 80;

/** A short, secret-free rendering of a value for an error message: `-1`, `"done"`, `an object`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return redactSecrets(text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS)}…` : text);
}
