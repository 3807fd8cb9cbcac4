/**
 * Whether a process recorded by a lock, a lease or a record is still the one that wrote it. A pid
 * alone does not name a process: pids are reused, so a record left by a crash may name an unrelated
 * live process. A pid plus the process's start time (field 22 of `/proc/<pid>/stat`, clock ticks
 * after boot) names one process for its whole life. Every lock, lease and record in mintpipe asks
 * here. Node built-ins only: the CLI's fast paths load this.
 */
import { readFileSync, readlinkSync } from 'node:fs';

/** A process, named for its whole life. */
export interface ProcessIdentity {
  pid: number;
  /**
   * Its start time in clock ticks after boot, as `/proc/<pid>/stat` gives it; absent where the
   * system has no `/proc` (then the pid alone is all there is).
   */
  startTicks?: string;
}

/** Linux's USER_HZ: the unit of `/proc/<pid>/stat`'s start time on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;

let procAvailable: boolean | undefined;
function hasProc(): boolean {
  if (procAvailable === undefined) procAvailable = readStat('self') !== undefined;
  return procAvailable;
}

function readStat(pid: number | 'self'): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The state and start time of `pid` from `/proc/<pid>/stat`; undefined when there is no such
 * process. The command name (field 2) may hold spaces and parentheses: fields are counted after the
 * last `)`, where field 3 (the state) comes first and field 22 (the start time) 20th.
 */
export function parseStat(stat: string): { state: string; startTicks: string } | undefined {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const startTicks = fields[19];
  if (!state || !startTicks || !/^\d+$/.test(startTicks)) return undefined;
  return { state, startTicks };
}

/**
 * The start time of a running `pid`; undefined when it is gone, or a zombie (killed, not yet reaped:
 * it has closed its files, and with them any lock it held).
 */
export function processStartTicks(pid: number): string | undefined {
  const stat = readStat(pid);
  const parsed = stat === undefined ? undefined : parseStat(stat);
  if (!parsed || parsed.state === 'Z' || parsed.state === 'X') return undefined;
  return parsed.startTicks;
}

/** This process's identity, to record in a lock, a lease or a record. */
export function currentProcess(): ProcessIdentity {
  const startTicks = hasProc() ? processStartTicks(process.pid) : undefined;
  return startTicks === undefined ? { pid: process.pid } : { pid: process.pid, startTicks };
}

let ownPidSpace: string | null | undefined;

/**
 * Where this process's pid means something: the boot (`boot_id`) and the pid namespace. A record
 * written in another container or on another machine names a pid this process cannot look up,
 * however alike the host names; only a record from the same pid space can be judged dead here.
 * Undefined where the system does not say (no `/proc`).
 */
export function pidSpace(): string | undefined {
  if (ownPidSpace === undefined) {
    try {
      ownPidSpace = `${readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}/${readlinkSync('/proc/self/ns/pid')}`;
    } catch {
      ownPidSpace = null;
    }
  }
  return ownPidSpace ?? undefined;
}

/** When `pid` started, in ms since the epoch (Linux only); undefined when it is not running. */
export function processStartedAtMs(pid: number): number | undefined {
  const ticks = processStartTicks(pid);
  const bootSeconds = Number(/^btime (\d+)$/m.exec(safeRead('/proc/stat'))?.[1]);
  if (ticks === undefined || !Number.isFinite(bootSeconds)) return undefined;
  return bootSeconds * 1000 + (Number(ticks) * 1000) / TICKS_PER_SECOND;
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the process a record names is still alive and still the same process. With `/proc`, a
 * record without a start time (written before records carried one) is not trusted: its pid may be
 * anyone's by now. Without `/proc` (not Linux), the pid is all there is.
 */
export function isLive(holder: { pid: unknown; startTicks?: unknown } | undefined): boolean {
  if (!holder || typeof holder.pid !== 'number' || !Number.isSafeInteger(holder.pid) || holder.pid <= 0) return false;
  if (!hasProc()) return pidExists(holder.pid);
  const ticks = processStartTicks(holder.pid);
  return ticks !== undefined && typeof holder.startTicks === 'string' && ticks === holder.startTicks;
}

/**
 * Whether `pid` is alive and started no later than `atMs` (with a second's slack for clock
 * rounding): for records that carry a wall-clock time instead of our start ticks, such as the
 * embedded engine's own status file. A process that started after the record was written cannot
 * have written it: its pid was reused.
 */
export function isLiveSince(pid: number, atMs: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  if (!hasProc()) return pidExists(pid);
  const started = processStartedAtMs(pid);
  return started !== undefined && started <= atMs + 1000;
}
