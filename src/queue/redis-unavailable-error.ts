import { MintpipeError } from '../errors.js';

/** The private redis-server cannot be used: missing and not installable, not starting, or not ours. Exit code 1. */
export class RedisUnavailableError extends MintpipeError {
  override name = 'RedisUnavailableError';
}
