/**
 * One mintpipe process at a time decides about the private redis-server of a data dir: whether to
 * start it, join it, or (the last user out) stop it. The lock is a file created exclusively that
 * names its holder by pid and start time; a lock whose holder is gone (killed, its pid reused) is
 * taken over at once, and a live holder is waited for however slow it is: its age says nothing.
 */
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { currentProcess, isLive, type ProcessIdentity } from '../process-identity.js';
import { RedisUnavailableError } from './redis-unavailable-error.js';

const LOCK_FILE = 'start.lock';
/** A lock file that names nobody yet is being written; one older than this was left by a crash. */
const UNNAMED_LOCK_MS = 5_000;
/** Long enough for another process to start the server (loading its data) or stop it. */
const LOCK_WAIT_MS = 60_000;
const RETRY_MS = 50;

export async function withStartLock<T>(dir: string, body: () => Promise<T>): Promise<T> {
  const file = join(dir, LOCK_FILE);
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      writeFileSync(file, JSON.stringify(currentProcess()), { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readHolder(file);
      if (isStale(file, holder)) {
        rmSync(file, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new RedisUnavailableError(`timed out after ${LOCK_WAIT_MS / 1000}s waiting for ${file} (held by pid ${holder?.pid ?? 'unknown'})`);
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
  try {
    return await body();
  } finally {
    if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true });
  }
}

function readHolder(file: string): ProcessIdentity | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ProcessIdentity;
  } catch {
    return undefined;
  }
}

function isStale(file: string, holder: ProcessIdentity | undefined): boolean {
  if (holder !== undefined) return !isLive(holder);
  try {
    return Date.now() - statSync(file).mtimeMs > UNNAMED_LOCK_MS;
  } catch {
    return false; // removed meanwhile: try again
  }
}
