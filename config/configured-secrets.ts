/**
 * Every configured value that must never be printed: the API key, the user and password of
 * REDIS_URL and CLICKHOUSE_URL, CLICKHOUSE_PASSWORD and the dashboard's token. Registered with the redactor before
 * anything can print, so logs, errors, run records, failed reasons, `status` and the dashboard
 * never show them, whatever library or upstream echoes them.
 */
import { parseRedisUrl } from './redis-url.js';
import type { MintpipeConfig } from './index.js';

/**
 * The built-in user of both Redis and ClickHouse: not a secret, and as an ordinary word it would
 * be cut out of every line that says "default".
 */
const BUILT_IN_USER = 'default';

function userAndPassword(username: string | undefined, password: string | undefined): string[] {
  return [username === BUILT_IN_USER ? undefined : username, password].filter((s): s is string => typeof s === 'string' && s.length > 0);
}

function clickhouseUrlCredentials(raw: string | undefined): string[] {
  if (!raw) return [];
  const url = new URL(raw);
  return userAndPassword(decodeURIComponent(url.username), decodeURIComponent(url.password));
}

function redisUrlCredentials(raw: string | undefined): string[] {
  if (!raw) return [];
  const target = parseRedisUrl(raw);
  return 'problem' in target ? [] : userAndPassword(target.username, target.password);
}

export function configuredSecrets(config: MintpipeConfig): string[] {
  return [
    ...(config.api.key ? [config.api.key] : []),
    ...redisUrlCredentials(config.redis.url),
    ...clickhouseUrlCredentials(config.clickhouse.url),
    ...(config.clickhouse.password ? [config.clickhouse.password] : []),
    // Whoever reads a log line with it could write through the dashboard.
    ...(config.dashboard.token ? [config.dashboard.token] : []),
  ];
}
