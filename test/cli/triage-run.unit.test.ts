/** `triage run --since`: whole days from 1d to 365d; anything else is a usage error naming the flag. */
import { describe, expect, it } from 'vitest';
import { parseSinceDays } from '../../src/cli/triage-run.js';
import { UsageError } from '../../src/errors.js';

describe('triage run --since', () => {
  it('takes whole days from 1d to 365d', () => {
    expect(['1d', '7d', ' 30d ', '365d'].map(parseSinceDays)).toEqual([1, 7, 30, 365]);
  });

  it.each(['0d', '366d', '400d', '7', '7x', '1.5d', '-1d', ''])('refuses %j with one line naming --since', (text) => {
    expect(() => parseSinceDays(text)).toThrow(new UsageError(`--since: expected a number of days from 1d to 365d, got "${text}"`));
  });
});
