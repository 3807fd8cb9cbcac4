import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { acquireRedis } from '../../src/queue/private-redis.js';
import { checkRedisPersistence } from '../../src/queue/redis-persistence.js';
import { alive } from '../support/processes.js';

describe('private redis-server', () => {
  it('is shared by processes of one data dir and stopped by the last one out, leaving no process behind', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mintpipe-private-redis-'));
    const logger = createLogger({ level: 'silent' });
    const first = await acquireRedis({ dataDir, logger });
    const second = await acquireRedis({ dataDir, logger });
    expect(second.url).toBe(first.url);
    const { pid } = JSON.parse(readFileSync(join(dataDir, 'redis', 'server.json'), 'utf8')) as { pid: number };
    expect(alive(pid)).toBe(true);

    const client = new Redis(first.url);
    await client.set('kept', '1');
    const appendOnly = (await client.config('GET', 'appendonly')) as string[];
    expect(appendOnly[1]).toBe('yes');
    client.disconnect();

    await first.release();
    expect(alive(pid)).toBe(true);
    await second.release();
    for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(pid)).toBe(false);

    // The next command starts it again on the same data: append-only kept what was written.
    const third = await acquireRedis({ dataDir, logger });
    const again = new Redis(third.url);
    expect(await again.get('kept')).toBe('1');
    again.disconnect();
    await third.release();
  });

  it('uses REDIS_URL as given and never stops a shared server', async () => {
    const handle = await acquireRedis({ url: process.env.REDIS_URL!, dataDir: '/nonexistent', logger: createLogger({ level: 'silent' }) });
    expect(handle.private).toBe(false);
    await handle.release();
    const client = new Redis(process.env.REDIS_URL!);
    expect(await client.ping()).toBe('PONG');
    client.disconnect();
  });

  it('keeps AOF with noeviction, and answers only to the generated password its owner alone can read', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mintpipe-private-redis-'));
    const handle = await acquireRedis({ dataDir, logger: createLogger({ level: 'silent' }) });
    try {
      const dir = join(dataDir, 'redis');
      const state = JSON.parse(readFileSync(join(dir, 'server.json'), 'utf8')) as { port: number; pid: number; password: string };
      expect(state.password).toMatch(/^[0-9a-f]{48}$/);
      expect(handle.url).toBe(`redis://:${state.password}@127.0.0.1:${state.port}`);

      const owner = new Redis(handle.url);
      expect(await checkRedisPersistence(owner)).toMatchObject({ durable: true, problems: [] });
      owner.disconnect();

      // Anyone else on the machine reaches the port, but without the password gets nothing.
      const stranger = new Redis(`redis://127.0.0.1:${state.port}`, { maxRetriesPerRequest: 0, lazyConnect: true });
      stranger.on('error', () => {});
      await expect(stranger.get('anything')).rejects.toThrow(/NOAUTH/);
      stranger.disconnect();

      // The password is in files only the owner can read, never on the command line `ps` shows.
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, 'server.json')).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, 'redis.conf')).mode & 0o777).toBe(0o600);
      expect(readFileSync(`/proc/${state.pid}/cmdline`, 'utf8')).not.toContain(state.password);
    } finally {
      await handle.release();
    }
  });
});
