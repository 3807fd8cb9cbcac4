/**
 * What mintpipe keeps under its data dir is its owner's alone: the warehouse's files, the private
 * Redis's data, its password and socket, the gateway's token, the dashboard's token. Every
 * directory mintpipe makes there is 0700 and every file it writes is 0600, each created with that
 * mode (the process umask can only narrow it), never chmod-ed afterwards: between a create and a
 * chmod another local user can open the file and keep reading it. A directory left with a wider mode (by an older mintpipe, by
 * hand, by an image) is narrowed with a log line; a file is always written anew (a temporary file
 * renamed over it), because writing over an existing file keeps that file's mode. The engine's own
 * files inside `clickhouse/` and Redis's inside `redis/` are protected by their 0700 directory.
 * Node built-ins only: the CLI's fast paths load this.
 */
import { chmodSync, closeSync, constants, existsSync, fstatSync, linkSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { MintpipeError } from './errors.js';

/** Where a narrowed directory is logged (a pino logger). */
export interface NarrowingLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** The subdirectories mintpipe makes in its data dir, narrowed as soon as a command starts. */
const DATA_SUBDIRS = ['clickhouse', 'redis'];

/**
 * A path under the data dir that mintpipe cannot make private (not a directory, another owner's,
 * cannot be created): configuration the user must change, so exit 2.
 */
export class PrivateDirError extends MintpipeError {
  override name = 'PrivateDirError';
  override exitCode = 2;
}

/**
 * Makes `path` (and any missing parent) a 0700 directory, or narrows an existing one to 0700,
 * saying so as `data_dir_narrowed`.
 */
export function privateDir(path: string, logger?: NarrowingLogger): void {
  refuseForeignSymlink(path);
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') {
      throw new PrivateDirError(`${path}: permission denied (another user's data dir?): set MINTPIPE_DATA_DIR to a directory of your own`, { cause: err });
    }
    if (code !== 'ENOENT') throw new PrivateDirError(`${path}: ${reason(err)}: set MINTPIPE_DATA_DIR to a directory of your own`, { cause: err });
    makeDirs(path);
    return;
  }
  if (!stat.isDirectory()) throw new PrivateDirError(`${path}: not a directory (mintpipe keeps its data there; set MINTPIPE_DATA_DIR to a directory)`);
  // Its owner can change its mode and plant files in it (a Redis record, a gateway) at any time.
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    throw new PrivateDirError(`${path}: owned by another user (uid ${stat.uid}), who could read and plant what mintpipe keeps there: set MINTPIPE_DATA_DIR to a directory of your own`);
  }
  const mode = stat.mode & 0o777;
  if ((mode & 0o077) === 0) return;
  try {
    chmodSync(path, 0o700);
  } catch (err) {
    throw new PrivateDirError(`${path}: mode ${octal(mode)} lets other local users in, and it cannot be narrowed to 0700 (${(err as NodeJS.ErrnoException).code ?? 'failed'}): use a directory of your own`, { cause: err });
  }
  logger?.warn({ event: 'data_dir_narrowed', path, from: octal(mode), to: '0700' }, `${path} was readable by other local users (${octal(mode)}): narrowed to 0700`);
}

/**
 * Refuses a path that passes through a symlink another user owns (root's are the system's): in a
 * directory others may write (a shared parent, /tmp where links are followed), they can plant one
 * to a directory of ours, which mintpipe would then fill and narrow, or point it elsewhere later.
 */
function refuseForeignSymlink(path: string): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  for (let at = resolve(path); dirname(at) !== at; at = dirname(at)) {
    let link: Stats;
    try {
      link = lstatSync(at);
    } catch {
      continue; // not there (yet): made by mintpipe, as a directory
    }
    if (link.isSymbolicLink() && link.uid !== uid && link.uid !== 0) {
      throw new PrivateDirError(`${path}: ${at} is a symlink owned by another user (uid ${link.uid}), who can point it anywhere: set MINTPIPE_DATA_DIR to a path of your own`);
    }
  }
}

/**
 * Creates `path` and its missing parents, each 0700, one mkdir per missing level. Not
 * `mkdirSync(…, { recursive: true })`: where a parent exists but refuses children with ENOENT
 * (`/proc/nope`), Node's recursive mkdir retries the same two calls forever at full CPU.
 */
function makeDirs(path: string): void {
  const missing: string[] = [];
  for (let at = path; !existsSync(at) && dirname(at) !== at; at = dirname(at)) missing.unshift(at);
  for (const dir of missing) {
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (err) {
      // Another process made it in between: the same outcome.
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && statSync(dir).isDirectory()) continue;
      throw new PrivateDirError(`${path}: cannot be created (${reason(err)}): set MINTPIPE_DATA_DIR to a directory of your own`, { cause: err });
    }
  }
}

/** What the system said, without the path Node repeats: `ENOTDIR: not a directory`. */
function reason(err: unknown): string {
  const { code, message } = err as NodeJS.ErrnoException;
  const said = message.split(',')[0] ?? message;
  return code && said.startsWith(code) ? said : code ?? message;
}

/**
 * Before anything creates paths in the data dir: makes it private (creating it when `create`) and
 * narrows what mintpipe made in it before.
 */
export function prepareDataDir(dataDir: string, options: { logger?: NarrowingLogger; create: boolean }): void {
  if (!options.create && !existsSync(dataDir)) return;
  privateDir(dataDir, options.logger);
  for (const name of DATA_SUBDIRS) {
    const sub = join(dataDir, name);
    if (existsSync(sub)) privateDir(sub, options.logger);
  }
}

/** A new 0600 file beside `path` holding `text`, complete before it is moved or linked into place. */
function partialFile(path: string, text: string): string {
  const partial = `${path}.${process.pid}.partial`;
  rmSync(partial, { force: true });
  writeFileSync(partial, text, { mode: 0o600, flag: 'wx' });
  return partial;
}

/**
 * Writes `text` to `path` as a new 0600 file that replaces the old one at once: readers see the
 * old content or the new, and never a wider mode the old file had.
 */
export function writePrivateFile(path: string, text: string): void {
  const partial = partialFile(path, text);
  try {
    renameSync(partial, path);
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  }
}

/**
 * Creates `path` as a new 0600 file holding `text`, unless something is already there (false
 * then): two processes creating it at once agree on one content. Linked into place complete, so a
 * reader never sees it half written.
 */
export function createPrivateFile(path: string, text: string): boolean {
  const partial = partialFile(path, text);
  try {
    linkSync(partial, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    rmSync(partial, { force: true });
  }
}

function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, '0')}`;
}

/** What `readOwnFile` found: the text, nothing (no file), or why the file there is not to be trusted. */
export type OwnFile = { text: string; problem?: undefined } | { text?: undefined; problem?: undefined } | { text?: undefined; problem: string; notAFile?: true };

/**
 * The text of a file mintpipe wrote privately (a server or gateway record, the dashboard token),
 * or why the file there is not to be trusted: a symlink (not followed), not a regular file (a FIFO
 * is opened without waiting for a writer), another user's, or one others may write (or, with
 * `othersMay: 'nothing'`, read as well). Other failures to open it are thrown.
 */
export function readOwnFile(path: string, options: { othersMay?: 'read' | 'nothing' } = {}): OwnFile {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return {};
    if (code === 'ELOOP') return { problem: 'is a symlink' };
    if (code === 'EACCES') return { problem: 'cannot be read (another owner?)' };
    throw err;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { problem: 'is not a regular file', notAFile: true };
    const uid = process.getuid?.();
    if (uid !== undefined && stat.uid !== uid) return { problem: `is owned by uid ${stat.uid}, not ${uid}` };
    const mode = stat.mode & 0o777;
    const readable = options.othersMay === 'nothing';
    if ((mode & (readable ? 0o077 : 0o022)) !== 0) return { problem: `has mode 0${mode.toString(8)}, ${readable ? 'readable' : 'writable'} by other local users` };
    return { text: readFileSync(fd, 'utf8') };
  } finally {
    closeSync(fd);
  }
}
