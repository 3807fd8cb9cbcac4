import { MintlifyApiError } from './mintlify-api-error.js';
import type { ApiOperation } from '../api-operation.js';

/**
 * A 2xx whose body breaks the contract: not JSON, a missing or mistyped field, or a broken
 * `total` invariant. Not retried by the client: the caller decides (an export fails the run).
 */
export class InvalidResponseError extends MintlifyApiError {
  override name = 'InvalidResponseError';
  override readonly reason = 'invalid_response';
  /** What is wrong, naming the field, e.g. `visitors[3].total: 5 is less than max(human, ai) = 7`. */
  readonly problem: string;

  constructor(options: { op: ApiOperation; status: number; problem: string }) {
    super(`${options.op}: invalid response body: ${options.problem}`, options);
    this.problem = options.problem;
  }
}
