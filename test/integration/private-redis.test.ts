import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { acquireRedis } from '../../src/queue/private-redis.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

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
});
