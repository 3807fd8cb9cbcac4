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

/** `CLICKHOUSE_URL` (trimmed; unset or blank = undefined), unchecked: enough to know which engine, before the configuration loads. */
export function clickhouseUrlOf(env: Record<string, string | undefined>): string | undefined {
  const value = env.CLICKHOUSE_URL?.trim();
  return value === undefined || value === '' ? undefined : value;
}
