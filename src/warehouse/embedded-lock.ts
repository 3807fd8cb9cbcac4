/**
 * Who holds an embedded warehouse directory. The engine's own lock (on `<path>/status`) is the
 * truth; our pid file names the mintpipe process behind it, and lets a second process refuse
 * before the engine prints its own lock error to stderr.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { currentProcess, isLive, isLiveSince, type ProcessIdentity } from '../process-identity.js';
import { writePrivateFile } from '../private-files.js';

const PID_FILE = 'mintpipe.pid';
/** Written by the engine while it holds the directory: `PID: 1234\nStarted at: …`. */
const ENGINE_STATUS_FILE = 'status';

/**
 * A holder recorded as `<pid> <start ticks>` (our pid file and open lock). A record that names a
 * live process with another start time was left by a crash and its pid reused: not a holder. A
 * zombie (killed, not yet reaped) has closed its files, and with them the lock: not a holder either.
 */
function readHolder(file: string): (ProcessIdentity & { command?: string }) | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const match = /^\s*(\d+)(?:\s+(\d+))?(?:\s+([a-z-]+))?/.exec(text);
  if (!match) return undefined;
  const pid = Number(match[1]);
  const holder: ProcessIdentity & { command?: string } = match[2] === undefined ? { pid } : { pid, startTicks: match[2] };
  if (match[3] !== undefined) holder.command = match[3];
  return holder;
}

/** The commands that hold a warehouse for as long as they run (and serve it to the others). */
export type LongRunningCommand = 'start' | 'worker';
let ownCommand: string = 'one-shot';

/** Names this process's command in the files it writes (pid file, claim): `start` and `worker` say so at once. */
export function declareCommand(command: LongRunningCommand): void {
  ownCommand = command;
}

/** True in a start or worker (declared with `declareCommand`). */
export function isLongRunning(): boolean {
  return ownCommand === 'start' || ownCommand === 'worker';
}

const CLAIM_FILE = 'mintpipe.claim';

/** A live start or worker, other than this process, that holds or is taking `path`; undefined when none. */
export function longRunningHolder(path: string): { pid: number; command: LongRunningCommand } | undefined {
  for (const file of [PID_FILE, CLAIM_FILE]) {
    const holder = readHolder(join(path, file));
    if (holder === undefined || holder.pid === process.pid || !isLive(holder)) continue;
    if (holder.command === 'start' || holder.command === 'worker') return { pid: holder.pid, command: holder.command };
  }
  return undefined;
}

/**
 * A start or worker claims the directory before anything else (before its banner, its Redis, its
 * engine), so that a one-shot command arriving while it starts up leaves the engine to it. Throws
 * nothing: the caller checked `longRunningHolder` first.
 */
export function claimDirectory(path: string): void {
  // 0700 from the start, as every directory mintpipe creates under the data dir (private-files.ts).
  mkdirSync(path, { recursive: true, mode: 0o700 });
  writeFileSync(join(path, CLAIM_FILE), identityLine(), { mode: 0o600 });
}

/** Removes the claim if it still names this process. */
export function releaseClaim(path: string): void {
  const file = join(path, CLAIM_FILE);
  if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true });
}

function otherLiveHolder(holder: ProcessIdentity | undefined): number | undefined {
  return holder !== undefined && holder.pid !== process.pid && isLive(holder) ? holder.pid : undefined;
}

/**
 * The engine's own status file: `PID: 1234\nStarted at: 2026-11-26 13:50:20` (local time). Its
 * holder is alive only if that pid started no later than the engine opened: a process that started
 * afterwards has the pid of a holder that crashed.
 */
function engineStatusHolder(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(join(path, ENGINE_STATUS_FILE), 'utf8');
  } catch {
    return undefined;
  }
  const pid = Number(/PID:\s*(\d+)/.exec(text)?.[1]);
  const startedAt = /Started at:\s*(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})/.exec(text);
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || !startedAt) return undefined;
  const openedAtMs = new Date(`${startedAt[1]}T${startedAt[2]}`).getTime();
  return Number.isFinite(openedAtMs) && isLiveSince(pid, openedAtMs) ? pid : undefined;
}

/**
 * The pid of another live process recorded as holding `path`, checked before opening: by our pid
 * file, else by the engine's status file (a holder that has not written its pid file yet). Asking
 * the engine instead would print its own lock error to stderr. The engine removes its status file
 * on a clean close, so a pid file left by a crash without one is ignored.
 */
export function recordedHolder(path: string): number | undefined {
  if (!existsSync(join(path, ENGINE_STATUS_FILE))) return undefined;
  return lockHolder(path);
}

/** After the engine refused the directory: the holder named by our pid file, else by the engine's status file. */
export function lockHolder(path: string): number | undefined {
  return otherLiveHolder(readHolder(join(path, PID_FILE))) ?? engineStatusHolder(path);
}

function identityLine(): string {
  const self = currentProcess();
  // Without start ticks (no /proc) the command cannot be told from them: it is left out.
  return self.startTicks === undefined ? `${self.pid}\n` : `${self.pid} ${self.startTicks} ${ownCommand}\n`;
}

export function writePidFile(path: string): void {
  writePrivateFile(join(path, PID_FILE), identityLine());
}

/** Removes the pid file if it still names this process. */
export function removePidFile(path: string): void {
  const file = join(path, PID_FILE);
  if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true });
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
      writeFileSync(file, identityLine(), { flag: 'wx', mode: 0o600 });
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
    if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true });
  }
}

function openLockIsStale(file: string): boolean {
  const holder = readHolder(file);
  if (holder !== undefined) return holder.pid !== process.pid && !isLive(holder);
  try {
    return Date.now() - statSync(file).mtimeMs > UNNAMED_OPEN_LOCK_MS;
  } catch {
    return false; // removed meanwhile: try again
  }
}
