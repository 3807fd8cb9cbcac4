import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { describeRedisTarget, parseRedisUrl } from '../../config/redis-url.js';

describe('REDIS_URL', () => {
  it('reads a single server with credentials and a database', () => {
    expect(parseRedisUrl('redis://app:p%40ss@cache.internal:6380/2')).toEqual({
      cluster: false,
      tls: false,
      nodes: [{ host: 'cache.internal', port: 6380 }],
      db: 2,
      username: 'app',
      password: 'p@ss',
    });
  });

  it('reads a cluster as its seed nodes, TLS and password included', () => {
    const target = parseRedisUrl('rediss+cluster://:s3cret@10.0.0.1:7000,10.0.0.2:7001,[::1]:7002');
    expect(target).toEqual({
      cluster: true,
      tls: true,
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
        { host: '::1', port: 7002 },
      ],
      db: 0,
      password: 's3cret',
    });
    expect(describeRedisTarget(target as Exclude<typeof target, { problem: string }>)).toBe('rediss+cluster://10.0.0.1:7000,10.0.0.2:7001,[::1]:7002');
  });

  it('refuses a cluster node without a port, and other schemes, naming REDIS_URL and never the password', () => {
    expect(() => loadConfig({ REDIS_URL: 'redis+cluster://:hunter2@h1:7000,h2' })).toThrow(/REDIS_URL.*cluster node "h2" is not host:port/);
    expect(() => loadConfig({ REDIS_URL: 'redis+cluster://:hunter2@h1:7000,h2' })).not.toThrow(/hunter2/);
    expect(() => loadConfig({ REDIS_URL: 'http://h1:6379' })).toThrow(/REDIS_URL.*expected redis:, rediss:, redis\+cluster: or rediss\+cluster: URL, got http:/);
    expect(loadConfig({ REDIS_URL: 'redis+cluster://h1:7000,h2:7001' }).redis).toEqual({ url: 'redis+cluster://h1:7000,h2:7001', allowVolatile: false });
    expect(loadConfig({ MINTPIPE_ALLOW_VOLATILE_REDIS: '1' }).redis.allowVolatile).toBe(true);
  });
});
