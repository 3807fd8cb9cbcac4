/** A setting that cannot be used: `KEY: what was expected`, exit code 2 (a UsageError). */
import { UsageError } from '../src/errors.js';

export class ConfigError extends UsageError {
  override name = 'ConfigError';
  constructor(
    readonly key: string,
    problem: string,
  ) {
    super(`${key}: ${problem}`);
  }
}
