/**
 * A command line that names no command (or a group without its subcommand) is bad usage: the help
 * goes to stderr and the exit code is 2, as for any other usage error. Asking for help is not.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

describe('a command line without a command', () => {
  it.each([[[]], [['prompts']], [['triage']]])('mintpipe %j prints the help on stderr and exits 2', async (args) => {
    const result = await runCli(args, {});
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: '' });
    expect(result.stderr).toMatch(/^Usage: mintpipe/);
  });

  it.each([[['help']], [['--help']], [['prompts', '--help']], [['help', 'prompts']]])('mintpipe %j prints the help on stdout and exits 0', async (args) => {
    const result = await runCli(args, {});
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^Usage: mintpipe/);
  });
});
