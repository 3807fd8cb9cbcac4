/**
 * The data dir the open stacks of a process share: the embedded engine holds one directory per
 * process, so stacks open at the same time in one test file use one dir (and, on the shared server,
 * one database per name). The first stack to open makes it; the last one to close removes it.
 */
import { rmSync } from 'node:fs';
import { engineEnv, serverUrl } from './engine.js';
import { makeTempDir } from './test-env.js';
import { seedWarehouse } from './warehouse-template.js';

export interface DataDirShare {
  dir: string;
  /** The engine's env for the stack's database. */
  engine: Record<string, string>;
  /** Lets go of the share; the last one removes the dir. Safe to call twice. */
  release(): void;
}

let shared: { dir: string; engines: Map<string, Record<string, string>>; users: number } | undefined;

/**
 * `dataDir` given (and not the shared one) is the caller's: it is never removed here. `alone` gives
 * a dir of its own instead (for child processes, which this process must not share it with).
 */
export function shareDataDir(options: { name: string; dataDir?: string; database?: string; alone?: boolean }): DataDirShare {
  if (options.dataDir !== undefined && options.dataDir !== shared?.dir) {
    return { dir: options.dataDir, engine: databaseEnv(options.database), release: () => undefined };
  }
  if (options.alone) {
    const dir = seedWarehouse(makeTempDir(options.name));
    return { dir, engine: databaseEnv(options.database), release: () => rmSync(dir, { recursive: true, force: true }) };
  }
  shared ??= { dir: seedWarehouse(makeTempDir(options.name)), engines: new Map(), users: 0 };
  const current = shared;
  current.users += 1;
  const key = options.database ?? '';
  const engine = current.engines.get(key) ?? databaseEnv(options.database);
  current.engines.set(key, engine);
  let released = false;
  return {
    dir: current.dir,
    engine,
    release() {
      if (released) return;
      released = true;
      current.users -= 1;
      if (current.users > 0) return;
      if (shared === current) shared = undefined;
      rmSync(current.dir, { recursive: true, force: true });
    },
  };
}

/** engine.ts's env; on the embedded engine a database other than the default is named too. */
function databaseEnv(database: string | undefined): Record<string, string> {
  if (serverUrl()) return engineEnv(database);
  return database === undefined ? {} : { CLICKHOUSE_DATABASE: database };
}
