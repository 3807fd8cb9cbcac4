/**
 * Who holds an embedded warehouse directory, and how this process takes it. The engine's own lock
 * (on `<path>/status`) is the truth; our pid file names the mintpipe process behind it, and lets a
 * second process refuse before the engine prints its own lock error to stderr.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Logger } from '../logger.js';
import { currentProcess, isLive, isLiveSince, type ProcessIdentity } from '../process-identity.js';
import { privateDir, writePrivateFile } from '../private-files.js';
import { WarehouseLockedError, WarehouseProcessBoundError, WarehouseWaitStoppedError } from './errors.js';

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
 * engine), so that a one-shot command arriving while it starts up leaves the engine to it. The
 * claim file is created exclusively: of two starts that both found no holder, the later one gets
 * the other's pid and command back instead of writing over its claim. A claim whose process is
 * gone (or is not a start or worker) is taken over.
 */
export function claimDirectory(path: string): { pid: number; command: LongRunningCommand } | undefined {
  // 0700 from the start, as every directory mintpipe creates under the data dir (private-files.ts).
  mkdirSync(path, { recursive: true, mode: 0o700 });
  const file = join(path, CLAIM_FILE);
  for (;;) {
    try {
      writeFileSync(file, identityLine(), { mode: 0o600, flag: 'wx' });
      return undefined;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = readHolder(file);
    const live = holder !== undefined && holder.pid !== process.pid && isLive(holder);
    if (live && (holder.command === 'start' || holder.command === 'worker')) return { pid: holder.pid, command: holder.command };
    rmSync(file, { force: true });
  }
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
 * or zombie process is taken over. The wait is short: an open holds it for ~100 ms; a live holder
 * that keeps it longer (suspended) is refused as a holder of the directory.
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
      // A live holder that never lets go (suspended mid-open): one line naming it, as for a held directory.
      if (Date.now() > deadline) throw new WarehouseLockedError(path, readHolder(file)?.pid, { waitedMs: OPEN_LOCK_WAIT_MS });
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

/**
 * While another process holds the embedded directory, keep trying for up to `timeoutMs` (calling
 * `onWait` once, so the caller can say it waits) instead of refusing at once. A holder that exits,
 * is killed or is a zombie frees it.
 */
export interface LockWait {
  timeoutMs: number;
  onWait?: (holderPid: number | undefined) => void;
  /** Call `onWait` again after this long. @default once */
  repeatMs?: number;
  /**
   * Aborted by a stop signal (its reason the signal's name): the wait ends there, with
   * WarehouseWaitStoppedError. A start waits for a one-shot command without limit, and that
   * command may never let go (suspended): the stop must not wait for it.
   */
  stop?: AbortSignal;
}

/** Pause between two tries of a locked directory. */
const LOCK_RETRY_MS = 100;

/** Runs `take` (holdDirectory), trying again within `lockWait` while another process holds the directory. */
export async function waitForDirectory<T>(lockWait: LockWait | undefined, take: () => Promise<T>): Promise<T> {
  const startedAt = Date.now();
  const timeoutMs = lockWait?.timeoutMs ?? 0;
  let told: number | undefined;
  for (;;) {
    try {
      return await take();
    } catch (err) {
      const locked = err instanceof WarehouseLockedError ? err : err instanceof EngineRefusedError ? err.locked : undefined;
      const waitedMs = Date.now() - startedAt;
      if (!locked || waitedMs + LOCK_RETRY_MS > timeoutMs) {
        if (!locked) throw err;
        // Refused with no holder to name, even after waiting: the engine's own reason, whatever it was.
        if (err instanceof EngineRefusedError && locked.holderPid === undefined) throw err.cause;
        throw timeoutMs > 0 ? new WarehouseLockedError(locked.path, locked.holderPid, { cause: err, waitedMs }) : locked;
      }
      if (lockWait?.stop?.aborted) throw new WarehouseWaitStoppedError(lockWait.stop.reason, locked.holderPid, { cause: err });
      if (told === undefined || Date.now() - told >= (lockWait?.repeatMs ?? Infinity)) {
        lockWait?.onWait?.(locked.holderPid);
        told = Date.now();
      }
      await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
    }
  }
}

/**
 * The engine refused a directory whose status file says a process has it, but no live mintpipe
 * process is named (one between opening the engine and writing its pid file, or one closing):
 * worth another try while waiting.
 */
class EngineRefusedError extends Error {
  constructor(
    readonly locked: WarehouseLockedError,
    options: { cause: unknown },
  ) {
    super('the embedded engine refused the directory', options);
  }
}

/** An engine handle on an embedded directory held by this process; `release` gives the directory back. */
export interface HeldDirectory<T> {
  path: string;
  handle: T;
  release: () => void;
}

/** Embedded directories this process has open, with their open counts. */
const openEmbedded = new Map<string, number>();

/** Tries while a dead holder's locks are released by the kernel: 30 × 100 ms. */
const DEAD_HOLDER_RETRIES = 30;
const DEAD_HOLDER_RETRY_MS = 100;

/**
 * Takes `<dataDir>/clickhouse` for this process with the engine handle `open` makes: refused when
 * another live process holds it or this process holds another directory, retried while a dead
 * holder's locks linger, recorded in the pid file while held.
 */
export async function holdDirectory<T>(dataDir: string, open: (path: string) => T, logger?: Logger): Promise<HeldDirectory<T>> {
  const path = resolve(join(dataDir, 'clickhouse'));
  for (const [openPath, count] of openEmbedded) {
    if (openPath !== path && count > 0) throw new WarehouseProcessBoundError(path, openPath);
  }
  const recorded = recordedHolder(path);
  if (recorded !== undefined) throw new WarehouseLockedError(path, recorded);
  // A one-shot command never takes the directory from a start or worker that is starting up: it
  // is as good as held (the command waits for it, then goes through it).
  const starting = isLongRunning() ? undefined : longRunningHolder(path);
  if (starting !== undefined) throw new WarehouseLockedError(path, starting.pid);
  // Reserve the directory before the first await, so a concurrent open of another one is refused.
  openEmbedded.set(path, (openEmbedded.get(path) ?? 0) + 1);
  const release = () => {
    const count = (openEmbedded.get(path) ?? 1) - 1;
    if (count > 0) {
      openEmbedded.set(path, count);
      return;
    }
    openEmbedded.delete(path);
    removePidFile(path);
  };
  try {
    // The engine's files are readable by anyone who can enter the directory: 0700 keeps them ours.
    privateDir(dataDir, logger);
    privateDir(path, logger);
    // One mintpipe process at a time asks the engine for the directory, and only when no live holder
    // is recorded: an engine that refuses prints its own lock error to stderr.
    const handle = await withOpenLock(path, async () => {
      const holder = recordedHolder(path) ?? (isLongRunning() ? undefined : longRunningHolder(path)?.pid);
      if (holder !== undefined) throw new WarehouseLockedError(path, holder);
      const opened = await openOnceDeadHolderGone(path, open);
      writePidFile(path);
      return opened;
    });
    return { path, handle, release };
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * The engine's open of `path`, tried again while it refuses with no live holder named: a process
 * killed a moment ago keeps its file locks until its last thread has exited.
 */
async function openOnceDeadHolderGone<T>(path: string, open: (path: string) => T): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return open(path);
    } catch (err) {
      const named = lockHolder(path);
      if (named !== undefined) throw new WarehouseLockedError(path, named, { cause: err });
      if (attempt < DEAD_HOLDER_RETRIES) {
        await new Promise((resolve) => setTimeout(resolve, DEAD_HOLDER_RETRY_MS));
        continue;
      }
      if (existsSync(join(path, ENGINE_STATUS_FILE))) throw new EngineRefusedError(new WarehouseLockedError(path, undefined), { cause: err });
      throw err;
    }
  }
}
