/**
 * `mintpipe` entry point: one file per command under ./commands, registered here. Expected errors
 * (MintpipeError) print one line and exit with their code; anything else is a bug and keeps its stack.
 */
import { Command, CommanderError } from 'commander';
import { MintpipeError } from '../errors.js';
// Not ../logger.js: the redactor alone, so `--help` and usage errors load no pino.
import { redactSecrets } from '../secrets/registered-secrets.js';
import { commands } from './commands/index.js';
import { inertLine, inertLines } from '../inert-text.js';

export async function main(argv: string[]): Promise<number> {
  const program = new Command('mintpipe')
    .description('Mintlify analytics exports (every dataset, one shared budget) into ClickHouse, and queued batch prompting of agent jobs, on BullMQ.')
    .version('0.1.0')
    .showSuggestionAfterError()
    // Options belong to the command they follow: without this, `export cancel --project P` gave
    // --project to `export` (commander lets a parent's option swallow its subcommand's).
    .enablePositionalOptions()
    .exitOverride();
  for (const register of commands) register(program);
  oneLineErrors(program, 'mintpipe');
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    return exitCodeFor(err);
  }
}

/**
 * Commander's usage errors as one line in the shape of mintpipe's own, naming the command:
 * `mintpipe export: unknown option '--bogus'` rather than `error: unknown option '--bogus'`.
 */
function oneLineErrors(command: Command, name: string): void {
  command.configureOutput({ outputError: (text, write) => write(`${name}: ${inertLine(text.trim().replace(/^error: /, '').replace(/\s*\n\s*/g, ' '))}\n`) });
  for (const sub of command.commands) oneLineErrors(sub, `${name} ${sub.name()}`);
}

/** Maps an error that reached the top to an exit code, printing it once. */
export function exitCodeFor(err: unknown): number {
  if (err instanceof CommanderError) {
    // --help, `help` and --version end with exit code 0; usage errors were already printed by
    // commander, and so was the help it shows on stderr when no command is named (exitCode 1).
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0;
    if (err.code === 'commander.help') return err.exitCode === 0 ? 0 : 2;
    return 2;
  }
  if (err instanceof MintpipeError && err.expected) {
    process.stderr.write(`mintpipe: ${inertLine(redactSecrets(err.message))}\n`);
    return err.exitCode;
  }
  const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`mintpipe: unexpected error: ${inertLines(redactSecrets(text))}\n`);
  return 1;
}

// A reader that stops early (`query … | head`) closes the pipe: stop quietly, as Unix tools do,
// instead of an unhandled EPIPE with a stack trace. A terminal that closed (EIO, after SIGHUP) only
// silences the output: the clean stop the hangup started goes on.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EIO' || err.code === 'ERR_STREAM_DESTROYED') return;
    if (err.code !== 'EPIPE') throw err;
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  });
}

/**
 * Runs the command in this process's arguments and exits with its code once everything written to
 * stdout and stderr is out, however slowly the reader takes it (`query … | less`), and not before:
 * an exit while a pipe still holds queued output cuts the output. Not when the last handle closes
 * either: the embedded engine keeps one open after it is closed. A reader that went away (EPIPE)
 * leaves the stream destroyed: nothing more to wait for. (A function, not top-level await: the
 * bundle bin/build.mjs makes is a CommonJS script, which V8 can cache compiled.)
 */
async function run(): Promise<void> {
  const code = await main(process.argv);
  process.exitCode = code;
  const pending = (stream: NodeJS.WriteStream) => !stream.destroyed && stream.writableLength > 0;
  while (pending(process.stdout) || pending(process.stderr)) await new Promise((resolve) => setTimeout(resolve, 10));
  process.exit(code);
}

void run();
