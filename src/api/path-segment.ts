import type { ApiOperation } from './api-operation.js';
import { describeValue } from './describe-value.js';
import { InvalidRequestError } from './errors/invalid-request-error.js';

/**
 * One URL path segment from an id. encodeURIComponent keeps `/`, `?` and `#` from changing the
 * path; `.`, `..` and the empty string cannot be encoded at all (URL parsing resolves dot
 * segments, even percent-encoded ones), so they are refused before a request is spent.
 */
export function pathSegment(op: ApiOperation, name: string, value: string): string {
  if (value === '' || value === '.' || value === '..') {
    throw new InvalidRequestError({ op, serverMessage: `${name}: ${describeValue(value)} cannot be a URL path segment` });
  }
  return encodeURIComponent(value);
}
