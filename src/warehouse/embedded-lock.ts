/**
 * Who holds an embedded warehouse directory. The engine's own lock (on `<path>/status`) is the
 * truth; our pid file names the mintpipe process behind it, and lets a second process refuse
 * before the engine prints its own lock error to stderr.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PID_FILE = 'mintpipe.pid';
/** Written by the engine while it holds the directory: `PID: 1234\nStarted at: …`. */
const ENGINE_STATUS_FILE = 'status';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readPid(file: string, pattern: RegExp): number | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const pid = Number(pattern.exec(text)?.[1]);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

function otherLivePid(pid: number | undefined): number | undefined {
  return pid !== undefined && pid !== process.pid && isAlive(pid) ? pid : undefined;
}

/**
 * The pid of another live mintpipe process recorded as holding `path`, checked before opening.
 * The engine removes its status file on a clean close, so a pid file left by a crash (or a reused
 * pid) without a status file is ignored.
 */
export function recordedHolder(path: string): number | undefined {
  if (!existsSync(join(path, ENGINE_STATUS_FILE))) return undefined;
  return otherLivePid(readPid(join(path, PID_FILE), /^\s*(\d+)/));
}

/** After the engine refused the directory: the holder named by our pid file, else by the engine's status file. */
export function lockHolder(path: string): number | undefined {
  return (
    otherLivePid(readPid(join(path, PID_FILE), /^\s*(\d+)/)) ??
    otherLivePid(readPid(join(path, ENGINE_STATUS_FILE), /PID:\s*(\d+)/))
  );
}

export function writePidFile(path: string): void {
  writeFileSync(join(path, PID_FILE), `${process.pid}\n`);
}

/** Removes the pid file if it still names this process. */
export function removePidFile(path: string): void {
  const file = join(path, PID_FILE);
  if (readPid(file, /^\s*(\d+)/) === process.pid) rmSync(file, { force: true });
}
