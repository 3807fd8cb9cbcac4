/**
 * Where a process's rows land, as one comparable line without credentials: the embedded engine's
 * directory, or a ClickHouse server's URL (user and password removed) and database.
 */
import { join } from 'node:path';

export function describeWarehouseTarget(config: { dataDir: string; clickhouse: { url?: string; database: string } }): string {
  if (!config.clickhouse.url) return `embedded ${join(config.dataDir, 'clickhouse')}`;
  const url = new URL(config.clickhouse.url);
  url.username = '';
  url.password = '';
  return `server ${url.origin}${url.pathname.replace(/\/+$/, '')} database ${config.clickhouse.database}`;
}
