import { MintlifyApiError } from './mintlify-api-error.js';
import type { ApiOperation } from '../api-operation.js';

/**
 * A 2xx whose body breaks the contract: not JSON, a missing or mistyped field, or a broken
 * `total` invariant. A body that is not JSON at all (cut short, a proxy's HTML page) is transient:
 * a read is tried again. One that parses but breaks the schema would break it again: not retried,
 * the caller decides (an export fails the run). A send is never resent either way (ambiguous).
 */
export class InvalidResponseError extends MintlifyApiError {
  override name = 'InvalidResponseError';
  override readonly reason = 'invalid_response';
  /** What is wrong, naming the field, e.g. `visitors[3].total: 5 is less than max(human, ai) = 7`. */
  readonly problem: string;
  readonly #transient: boolean;

  constructor(options: { op: ApiOperation; status: number; problem: string; transient?: boolean }) {
    super(`${options.op}: invalid response body: ${options.problem}`, options);
    this.problem = options.problem;
    this.#transient = options.transient ?? false;
  }

  override get retryable(): boolean {
    return this.#transient;
  }
}
