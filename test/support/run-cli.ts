import { spawn, type ChildProcess } from 'node:child_process';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Spawns `mintpipe …` as a separate process, collecting what it prints. */
function spawnCli(args: string[], env: Record<string, string | undefined>) {
  const child = spawn(process.execPath, ['bin/mintpipe.js', ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const printed = { stdout: '', stderr: '' };
  child.stdout.on('data', (d: Buffer) => (printed.stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (printed.stderr += d.toString()));
  return { child, printed };
}

/** Runs `mintpipe …` as a user would (a separate process), with the given environment. */
export function runCli(args: string[], env: Record<string, string | undefined>, timeoutMs = 90_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const { child, printed } = spawnCli(args, env);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mintpipe ${args.join(' ')} timed out; stderr: ${printed.stderr}`));
    }, timeoutMs);
    // 'close', not 'exit': by then everything it printed has been read.
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, ...printed });
    });
  });
}

export interface RunningCli {
  child: ChildProcess;
  /** What it printed so far. */
  output(): CliResult;
  /** Its exit code, once it exits. */
  exited: Promise<number | null>;
}

/**
 * Starts a long-running `mintpipe …` (start, worker, dashboard) and resolves once it is up: its
 * stdout shows `ready` (by default the line start prints), or `ready(printed)` holds for what it
 * printed so far (a worker says so on stderr). Rejects when it exits first or takes longer than
 * `timeoutMs`. The caller stops it (and kills it in a finally).
 */
export async function startCli(
  args: string[],
  env: Record<string, string | undefined>,
  ready: string | ((printed: { stdout: string; stderr: string }) => boolean) = 'running (Ctrl-C to stop)',
  timeoutMs = 60_000,
): Promise<RunningCli> {
  const isUp = typeof ready === 'string' ? (printed: { stdout: string }) => printed.stdout.includes(ready) : ready;
  const { child, printed } = spawnCli(args, env);
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const deadline = Date.now() + timeoutMs;
  while (!isUp(printed)) {
    if (Date.now() > deadline || child.exitCode !== null) {
      if (child.exitCode === null) child.kill('SIGKILL');
      throw new Error(`mintpipe ${args.join(' ')} did not come up: ${printed.stdout}\n${printed.stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, output: () => ({ code: child.exitCode, ...printed }), exited };
}
