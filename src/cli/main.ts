/**
 * `mintpipe` entry point: one file per command under ./commands, registered here. Expected errors
 * (MintpipeError) print one line and exit with their code; anything else is a bug and keeps its stack.
 */
import { Command, CommanderError } from 'commander';
import { MintpipeError } from '../errors.js';
// Not ../logger.js: the redactor alone, so `--help` and usage errors load no pino.
import { redactSecrets } from '../secrets/registered-secrets.js';
import { commands } from './commands/index.js';

export async function main(argv: string[]): Promise<number> {
  const program = new Command('mintpipe')
    .description('Mintlify analytics exports (every dataset, one shared budget) into ClickHouse, and queued batch prompting of agent jobs, on BullMQ.')
    .version('0.1.0')
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(text.trim().split('\n')[0] + '\n') });
  for (const register of commands) register(program);
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    return exitCodeFor(err);
  }
}

/** Maps an error that reached the top to an exit code, printing it once. */
export function exitCodeFor(err: unknown): number {
  if (err instanceof CommanderError) {
    // --help and --version end with exit code 0; usage errors were already printed by commander.
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
    return 2;
  }
  if (err instanceof MintpipeError && err.expected) {
    process.stderr.write(`mintpipe: ${redactSecrets(err.message)}\n`);
    return err.exitCode;
  }
  const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`mintpipe: unexpected error: ${redactSecrets(text)}\n`);
  return 1;
}

const code = await main(process.argv);
// Let pending stream writes flush; open handles (none, when commands clean up) must not keep us alive.
process.exitCode = code;
setTimeout(() => process.exit(code), 50).unref();
