/**
 * How a failed fetch becomes a NetworkError, from the shapes undici rejects with. The real path
 * (fetch against a closed loopback port) is in test/api/api-client.test.ts; a name that
 * does not resolve is tested here, so no test needs a DNS lookup.
 */
import { describe, expect, it } from 'vitest';
import { errorFromFetchFailure } from '../../src/api/error-from-fetch-failure.js';
import { NetworkError } from '../../src/api/index.js';

/** What undici's fetch rejects with: TypeError('fetch failed') whose cause is the system error. */
function fetchFailed(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

function systemError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('a failed fetch', () => {
  it('an unresolvable host is NetworkError with requestSent false, whatever the resolver answered', () => {
    for (const code of ['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME']) {
      const error = errorFromFetchFailure('getAnalytics', fetchFailed(systemError(code, `getaddrinfo ${code} api.mintlify.test`)));
      expect(error).toBeInstanceOf(NetworkError);
      expect(error).toMatchObject({ code, requestSent: false, reason: 'network' });
      expect(error.message).toBe(`getAnalytics: network error before connecting (${code}): getaddrinfo ${code} api.mintlify.test`);
    }
  });

  it('every address refused (one error per address tried) is NetworkError with requestSent false', () => {
    const refused = new AggregateError([systemError('ECONNREFUSED', 'connect ECONNREFUSED ::1:9'), systemError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9')]);
    const error = errorFromFetchFailure('sendMessage', fetchFailed(refused));
    expect(error).toMatchObject({ code: 'ECONNREFUSED', requestSent: false });
  });

  it('a socket closed after connecting, or a failure without a code, counts as possibly sent', () => {
    expect(errorFromFetchFailure('sendMessage', new TypeError('terminated', { cause: systemError('UND_ERR_SOCKET', 'other side closed') }))).toMatchObject({
      code: 'UND_ERR_SOCKET',
      requestSent: true,
    });
    expect(errorFromFetchFailure('sendMessage', new TypeError('fetch failed'))).toMatchObject({ code: undefined, requestSent: true });
  });

  it('a connection reset or a response timed out mid-request counts as possibly sent: its budget slot is not given back', () => {
    for (const code of ['ECONNRESET', 'EPIPE', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']) {
      expect(errorFromFetchFailure('getAnalytics', fetchFailed(systemError(code, `read ${code}`)))).toMatchObject({ code, requestSent: true });
    }
  });
});
