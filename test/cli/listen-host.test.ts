/**
 * A --host (or MINTPIPE_DASHBOARD_HOST) that names no address of this machine is the user's input
 * to change: dashboard and emulator say so in one line naming the flag, exit 2, no stack trace.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { testEnv } from '../support/test-env.js';

/** Exactly one line on stderr, and no stack frame. */
function oneLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
  return lines[0]!;
}

// 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never an address of this machine. .invalid never resolves (RFC 2606).
const NOT_HERE = '192.0.2.1';
const NO_SUCH_NAME = 'no-such-host.invalid';
const TOKEN = { MINTPIPE_DASHBOARD_TOKEN: 'a-long-random-token-for-a-test-only-0123456789' };

describe('a --host that is not an address of this machine', () => {
  it('makes dashboard name --host and say the address is not one of this machine, exit 2', async () => {
    const result = await runCli(['dashboard', '--host', NOT_HERE, '--port', '0'], testEnv(TOKEN));
    expect(result.code, result.stderr).toBe(2);
    expect(oneLine(result.stderr)).toBe(
      `mintpipe: the dashboard cannot listen on ${NOT_HERE}:0: ${NOT_HERE} is not an address of this machine; give --host (or MINTPIPE_DASHBOARD_HOST) one of its addresses, such as 127.0.0.1`,
    );
  }, 60_000);

  it('makes dashboard name --host and say a host name does not resolve, exit 2', async () => {
    const result = await runCli(['dashboard', '--host', NO_SUCH_NAME, '--port', '0'], testEnv(TOKEN));
    expect(result.code, result.stderr).toBe(2);
    expect(oneLine(result.stderr)).toBe(
      `mintpipe: the dashboard cannot listen on ${NO_SUCH_NAME}:0: ${NO_SUCH_NAME} does not resolve to an address; give --host (or MINTPIPE_DASHBOARD_HOST) one of its addresses, such as 127.0.0.1`,
    );
  }, 60_000);

  it.each([
    [NOT_HERE, 'is not an address of this machine'],
    [NO_SUCH_NAME, 'does not resolve to an address'],
  ])('makes emulator name --host %s in one line, exit 2', async (host, problem) => {
    const result = await runCli(['emulator', '--host', host, '--port', '0'], testEnv());
    expect(result.code, result.stderr).toBe(2);
    expect(oneLine(result.stderr)).toBe(`mintpipe: --host ${host} ${problem}; give one of this machine's addresses, such as 127.0.0.1`);
  }, 60_000);
});
