/**
 * `start --demo-days N` takes a whole number of days from 0 to 90, and refuses anything else in one
 * line, exit 2, before it starts anything: an empty value is not 0, nor is hex or a fraction a day count.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { testEnv } from '../support/test-env.js';

describe('start --demo-days', () => {
  it.each(['', 'abc', '0x10', '1.5', '1e1', '-1', '91'])('refuses %j in one line naming the flag, exit 2, and starts nothing', async (value) => {
    const result = await runCli(['start', '--demo-days', value, '--no-dashboard', '--no-scheduler', '--no-workers'], testEnv(), 30_000);
    expect({ code: result.code, stderr: result.stderr, stdout: result.stdout }).toEqual({
      code: 2,
      stderr: `mintpipe: --demo-days: expected a whole number of days from 0 to 90, got "${value}"\n`,
      stdout: '',
    });
  }, 40_000);
});
