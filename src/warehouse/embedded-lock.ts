/**
 * Who holds an embedded warehouse directory. The engine's own lock (on `<path>/status`) is the
 * truth; our pid file names the mintpipe process behind it, and lets a second process refuse
 * before the engine prints its own lock error to stderr.
 */
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PID_FILE = 'mintpipe.pid';
/** Written by the engine while it holds the directory: `PID: 1234\nStarted at: …`. */
const ENGINE_STATUS_FILE = 'status';

/**
 * Whether `pid` is a process that can still hold the engine's lock. A zombie (killed, not yet
 * reaped by its parent) still answers `kill(pid, 0)` but has closed its files, and with them the
 * lock: it counts as gone, so a worker restarted right after a SIGKILL starts.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
}

/** Linux: state `Z` (zombie) or `X` (dead) in /proc/<pid>/stat. Elsewhere: not known, so no. */
function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    // On Linux a process without a /proc entry is gone (it exited between the two looks).
    return existsSync('/proc/self/stat');
  }
  // `pid (comm) S …`: comm may hold spaces and parentheses, the state follows the last ')'.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X';
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
 * The pid of another live process recorded as holding `path`, checked before opening: by our pid
 * file, else by the engine's status file (a holder that has not written its pid file yet). Asking
 * the engine instead would print its own lock error to stderr. The engine removes its status file
 * on a clean close, so a pid file left by a crash (or a reused pid) without one is ignored.
 */
export function recordedHolder(path: string): number | undefined {
  if (!existsSync(join(path, ENGINE_STATUS_FILE))) return undefined;
  return lockHolder(path);
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

const OPEN_LOCK_FILE = 'mintpipe.open.lock';
/** An open lock whose file names no pid yet is being written; older than this, it was left by a crash. */
const UNNAMED_OPEN_LOCK_MS = 5_000;
const OPEN_LOCK_WAIT_MS = 30_000;

/**
 * Runs `body` (the engine's open and our pid file) while holding `mintpipe.open.lock`, a file
 * created exclusively, so that mintpipe processes opening the directory at once take turns and
 * each sees the previous one's pid file instead of asking the engine. A lock file naming a dead
 * or zombie process is taken over. The wait is short: an open holds it for ~100 ms.
 */
export async function withOpenLock<T>(path: string, body: () => T | Promise<T>): Promise<T> {
  const file = join(path, OPEN_LOCK_FILE);
  const deadline = Date.now() + OPEN_LOCK_WAIT_MS;
  for (;;) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (openLockIsStale(file)) {
        rmSync(file, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${file}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  try {
    return await body();
  } finally {
    if (readPid(file, /^\s*(\d+)/) === process.pid) rmSync(file, { force: true });
  }
}

function openLockIsStale(file: string): boolean {
  const pid = readPid(file, /^\s*(\d+)/);
  if (pid !== undefined) return !isAlive(pid);
  try {
    return Date.now() - statSync(file).mtimeMs > UNNAMED_OPEN_LOCK_MS;
  } catch {
    return false; // removed meanwhile: try again
  }
}
