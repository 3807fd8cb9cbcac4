/**
 * Where mintpipe keeps its local data (the embedded warehouse, its lock and gateway file): alone in
 * a module of its own, so a command that only needs to find a running installation (`query`
 * through the gateway) resolves it exactly as the configuration does without loading all of it.
 */
import { resolve } from 'node:path';

/** `MINTPIPE_DATA_DIR` (trimmed; unset or blank = `./.data`), as an absolute path. @default ./.data */
export function dataDirOf(env: Record<string, string | undefined>): string {
  const value = env.MINTPIPE_DATA_DIR?.trim();
  return resolve(value === undefined || value === '' ? './.data' : value);
}

/** True when a ClickHouse server is configured (`CLICKHOUSE_URL` set and not blank) instead of the embedded engine. */
export function usesClickHouseServer(env: Record<string, string | undefined>): boolean {
  return (env.CLICKHOUSE_URL?.trim() ?? '') !== '';
}
