/**
 * Who uses the private redis-server: one record per user (a process may hold more than one) in
 * the 0700 `redis/holders/` directory, naming the process by pid and start time. The last user out
 * stops the server, and only when no other record names a live process: a user whose event loop
 * is stalled (a long query, a busy loop) is still alive, unlike a lease it would have to refresh;
 * a user that was killed is recognised as gone even when its pid was reused. Records of processes
 * that are gone are removed as they are found.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { currentProcess, isLive, type ProcessIdentity } from '../process-identity.js';
import { writePrivateFile } from '../private-files.js';

const RECORD_SUFFIX = '.holder';

/** Records this process as a user of the server; returns the record's path, for `dropHolder`. */
export function addHolder(dir: string): string {
  const self = currentProcess();
  const path = join(dir, `${self.pid}-${randomBytes(6).toString('hex')}${RECORD_SUFFIX}`);
  writePrivateFile(path, JSON.stringify(self));
  return path;
}

export function dropHolder(path: string): void {
  rmSync(path, { force: true });
}

/** How many records name a live process, after removing those that name none. */
export function liveHolders(dir: string): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let live = 0;
  for (const name of names.filter((n) => n.endsWith(RECORD_SUFFIX))) {
    const path = join(dir, name);
    if (isLive(readRecord(path))) live += 1;
    else rmSync(path, { force: true });
  }
  return live;
}

function readRecord(path: string): ProcessIdentity | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as ProcessIdentity;
  } catch {
    return undefined;
  }
}
