/**
 * `export` refuses a window that starts after today (UTC) up front, in one line, exit 2: it would
 * load nothing and make the dataset look up to date.
 */
import { describe, expect, it } from 'vitest';
import { addDays, msToDay } from '../../src/export/dates.js';
import { testEnv } from '../support/export-stack.js';
import { runCli } from '../support/run-cli.js';

describe('export of days after today', () => {
  it('is refused up front with one line naming --from, exit 2, and nothing on stdout', async () => {
    const today = msToDay(Date.now());
    const from = addDays(today, 1);
    const result = await runCli(['export', '--project', 'docs', '--from', from, '--to', addDays(today, 3), '--wait'], testEnv());
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
      code: 2,
      stdout: '',
      stderr: `mintpipe: --from: ${from} is after today (${today}, UTC): no analytics exist for it yet\n`,
    });
  });
});
