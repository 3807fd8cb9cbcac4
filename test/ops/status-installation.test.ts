/**
 * What running processes publish about themselves in Redis, against the real Redis: a record that
 * lives while its process refreshes it, goes when the process stops, lapses when it dies, and the
 * settings that count when several processes run (those of the processes acting on them).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { budgetRate, readInstallation } from '../../src/ops/installation-reads.js';
import { describeProcess, listInstallation, publishInstallation, type InstallationProcess } from '../../src/queue/installation-info.js';
import { processStartTicks } from '../../src/process-identity.js';
import { createRedisConnection } from '../../src/queue/redis-connection.js';
import { until } from '../support/wait.js';

let redis: Redis;

beforeAll(() => {
  redis = createRedisConnection(process.env.REDIS_URL!, 'status-installation-test');
});

afterAll(async () => {
  await redis.quit();
});

const prefix = () => `mpinst-${randomUUID().slice(0, 8)}`;

function processOf(role: InstallationProcess['role'], env: Record<string, string>, parts: { queues: InstallationProcess['queues']; scheduler: boolean }, pid: number): InstallationProcess {
  // Another process, on another machine: its pid cannot be checked from here.
  return { ...describeProcess(role, loadConfig(env), parts), pid, pidSpace: `elsewhere-${pid}` };
}

describe('the processes of a running installation in Redis', () => {
  it('publishes the settings a process runs with, and deletes them when it stops', async () => {
    const queuePrefix = prefix();
    const info = describeProcess('worker', loadConfig({ MINTPIPE_ANALYTICS_RATE: '7/1m', MINTPIPE_PROJECTS: 'a,b', MINTPIPE_DATASETS: 'feedback,visitors', MINTPIPE_ASSISTANT_THREADS: 'b' }), {
      queues: ['export'],
      scheduler: false,
    });
    const publication = await publishInstallation(redis, queuePrefix, info);
    const [listed] = await listInstallation(redis, queuePrefix);
    // As listed: what was published, and its heartbeat (refreshed every 10 s by default, a moment ago).
    expect(listed).toEqual({ ...info, heartbeat: { everyMs: 10_000, agoMs: expect.any(Number) } });
    expect(listed!.heartbeat!.agoMs).toBeLessThan(5000);
    expect(listed?.settings).toEqual({
      analyticsRate: '7/1m',
      messageRate: '100/1h',
      nightly: { cron: '0 2 * * *', timezone: 'UTC' },
      projects: ['a', 'b'],
      datasets: ['feedback', 'visitors'],
      assistantThreads: ['b'],
    });
    expect(listed?.pid).toBe(process.pid);
    expect(listed?.version).toMatch(/^\d+\.\d+\.\d+/);
    // Another installation on the same Redis sees none of it.
    expect(await listInstallation(redis, prefix())).toEqual([]);
    await publication.stop();
    expect(await listInstallation(redis, queuePrefix)).toEqual([]);
  });

  it('drops a killed process from this machine at once (pid and start time), and leaves one it cannot check to lapse', async () => {
    const queuePrefix = prefix();
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    await until('the child to run', async () => processStartTicks(child.pid!));
    const identity = { pid: child.pid!, startTicks: processStartTicks(child.pid!)! };
    const record = describeProcess('start', loadConfig({}), { queues: [], scheduler: true });
    expect(record.pidSpace).toMatch(/.+\/pid:\[\d+\]$/);
    const here = await publishInstallation(redis, queuePrefix, { ...record, ...identity }, { ttlMs: 60_000 });
    const elsewhere = await publishInstallation(redis, queuePrefix, { ...record, ...identity, pidSpace: 'another-boot/pid:[1]' }, { ttlMs: 60_000 });
    expect((await listInstallation(redis, queuePrefix)).map((p) => p.pidSpace).sort()).toEqual(['another-boot/pid:[1]', record.pidSpace].sort());
    child.kill('SIGKILL');
    await once(child, 'exit');
    // Its record would live on for its TTL (a minute here): the reader sees the pid is gone.
    expect((await listInstallation(redis, queuePrefix)).map((p) => p.pidSpace)).toEqual(['another-boot/pid:[1]']);
    expect(await redis.exists(here.key)).toBe(0);
    await here.stop();
    await elsewhere.stop();
  });

  it('keeps a live process listed past its TTL by refreshing it, and drops a dead one after the TTL', async () => {
    const queuePrefix = prefix();
    // Its own connection: cutting it is what a killed process looks like to Redis (no refresh, no delete).
    const own = createRedisConnection(process.env.REDIS_URL!, 'status-installation-dying');
    const ttlMs = 1500;
    const publication = await publishInstallation(own, queuePrefix, describeProcess('worker', loadConfig({}), { queues: ['export'], scheduler: false }), { ttlMs, refreshMs: 100 });
    await new Promise((resolve) => setTimeout(resolve, ttlMs * 3));
    expect(await listInstallation(redis, queuePrefix)).toHaveLength(1);
    const remaining = await redis.pttl(publication.key);
    expect(remaining).toBeGreaterThan(0);
    expect(remaining).toBeLessThanOrEqual(ttlMs);
    expect((await listInstallation(redis, queuePrefix))[0]!.heartbeat!.agoMs).toBeLessThan(ttlMs / 2);
    own.disconnect();
    // Killed: still listed until its record lapses, its heartbeat ever later.
    const silent = await until('its heartbeat to be late', async () => {
      const [listed] = await listInstallation(redis, queuePrefix);
      return listed?.heartbeat && listed.heartbeat.agoMs >= 500 ? listed : undefined;
    }, ttlMs * 2);
    expect(silent.heartbeat!.everyMs).toBe(100);
    await until('the dead process to drop out', async () => ((await listInstallation(redis, queuePrefix)).length === 0 ? true : undefined), ttlMs * 4);
    expect(await redis.exists(publication.key)).toBe(0);
  });

  it('shows the settings of the processes that act on them, and says when they disagree', async () => {
    const queuePrefix = prefix();
    const scheduler = processOf('start', { MINTPIPE_ANALYTICS_RATE: '100/1h', MINTPIPE_SCHEDULE_CRON: '30 3 * * *', MINTPIPE_PROJECTS: 'p1' }, { queues: [], scheduler: true }, 101);
    const exporter = processOf('worker', { MINTPIPE_ANALYTICS_RATE: '20/5s', MINTPIPE_PROJECTS: 'p1,p2' }, { queues: ['export'], scheduler: false }, 102);
    const other = processOf('worker', { MINTPIPE_ANALYTICS_RATE: '50/1h', MINTPIPE_PROJECTS: 'p1,p2', MINTPIPE_MESSAGE_RATE: '5/1m' }, { queues: ['export', 'prompts'], scheduler: false }, 103);
    const publications = await Promise.all([scheduler, exporter, other].map((p) => publishInstallation(redis, queuePrefix, p)));
    try {
      // The shell reading it has settings of its own; they must not show.
      const view = await readInstallation(redis, queuePrefix, loadConfig({ MINTPIPE_ANALYTICS_RATE: '1/1d', MINTPIPE_PROJECTS: 'shell' }));
      expect(view.running).toBe(true);
      expect(view.settingsFrom).toBe('running');
      expect(view.processes.map((p) => p.pid).sort()).toEqual([101, 102, 103]);
      expect(view.settings.nightly).toEqual({ cron: '30 3 * * *', timezone: 'UTC' });
      expect(view.settings.projects).toEqual(['p1', 'p2']);
      expect(view.settings.messageRate).toBe('5/1m');
      expect(['20/5s', '50/1h']).toContain(view.settings.analyticsRate);
      expect(view.disagreements).toEqual([expect.stringMatching(/analytics budget: .*20\/5s \(worker pid 102\).* vs .*50\/1h \(worker pid 103\)|analytics budget: .*50\/1h \(worker pid 103\).* vs .*20\/5s \(worker pid 102\)/)]);
      // Usage is counted over the longest window any exporter uses, so it never trims what another still counts.
      expect(budgetRate(view)).toEqual({ limit: 50, windowMs: 3_600_000 });
    } finally {
      await Promise.all(publications.map((p) => p.stop()));
    }
  });

  it('with nothing running, says so and gives the settings the reader would use', async () => {
    const view = await readInstallation(redis, prefix(), loadConfig({ MINTPIPE_ANALYTICS_RATE: '9/1m', MINTPIPE_PROJECTS: 'mine' }));
    expect(view).toMatchObject({ running: false, processes: [], settingsFrom: 'local', disagreements: [] });
    expect(view.settings).toMatchObject({ analyticsRate: '9/1m', projects: ['mine'] });
    expect(budgetRate(view)).toEqual({ limit: 9, windowMs: 60_000 });
  });
});
