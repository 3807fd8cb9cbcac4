import { redactSecrets } from '../logger.js';
import type { ApiOperation } from './api-operation.js';
import { NetworkError } from './errors/network-error.js';

/**
 * Codes that prove the connection was never established, so the server cannot have seen the
 * request. Anything else (resets, `UND_ERR_SOCKET`, unknown) counts as possibly sent.
 */
const NOT_CONNECTED_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NONAME',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function errorCode(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || !('code' in value)) return undefined;
  return typeof value.code === 'string' ? value.code : undefined;
}

function errorMessage(value: unknown): string | undefined {
  return value instanceof Error ? value.message : undefined;
}

/**
 * undici's fetch rejects with `TypeError('fetch failed')` whose `cause` holds the system error
 * (or an AggregateError of one per address tried); a body read fails with `TypeError('terminated')`
 * and the same kind of cause. Walk the causes for the first code rather than parse message text.
 */
function findCause(error: unknown): { code?: string; message?: string } {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== undefined; depth++) {
    const code = errorCode(current);
    if (code) return { code, message: errorMessage(current) };
    if (current instanceof AggregateError) {
      const first: unknown = current.errors[0];
      const nested = errorCode(first);
      if (nested) return { code: nested, message: errorMessage(first) };
    }
    current = current instanceof Error ? current.cause : undefined;
  }
  return { message: errorMessage(error) };
}

/** Maps whatever fetch (or reading the body) threw, not a timeout nor a caller abort, to a NetworkError. */
export function errorFromFetchFailure(op: ApiOperation, error: unknown): NetworkError {
  const { code, message } = findCause(error);
  return new NetworkError({
    op,
    code,
    requestSent: code === undefined || !NOT_CONNECTED_CODES.has(code),
    detail: redactSecrets(message ?? 'fetch failed'),
    cause: error,
  });
}
