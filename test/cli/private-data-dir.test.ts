/**
 * Another local user reads nothing mintpipe keeps: the data dir, through the real bin. Runs as root
 * (as CI does), which `runuser -u nobody` needs to act as that other user.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { fileTempDir } from '../support/test-env.js';

const mode = (path: string) => statSync(path).mode & 0o777;

/** `cmd` run as the unprivileged user nobody. */
function asNobody(...cmd: string[]) {
  return spawnSync('runuser', ['-u', 'nobody', '--', ...cmd], { encoding: 'utf8' });
}

/** A fresh data dir path under a parent others may pass through (0711) but not list. */
function dataDirUnderSharedParent(): string {
  const parent = fileTempDir('data-dir');
  chmodSync(parent, 0o711);
  return join(parent, 'data');
}

// The commands run with the widest umask: any path created without an explicit mode comes out
// 0777 / 0666, so the modes below are the ones mintpipe asked for.
let previousUmask = 0;
beforeAll(() => {
  previousUmask = process.umask(0);
});
afterAll(() => {
  process.umask(previousUmask);
});

describe('the data dir, to another local user', () => {
  it('cannot be listed by another user once `query` has created it, and what mintpipe made there is 0700', async () => {
    const dataDir = dataDirUnderSharedParent();
    const result = await runCli(['query', 'SELECT 1 AS one', '--format', 'json'], { MINTPIPE_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([{ one: 1 }]);

    // The parent lets nobody reach the data dir; the data dir itself refuses them.
    expect(asNobody('stat', dataDir).status).toBe(0);
    const listing = asNobody('ls', dataDir);
    expect(listing.status).not.toBe(0);
    expect(listing.stderr).toContain('Permission denied');
    expect(asNobody('ls', join(dataDir, 'clickhouse')).stderr).toContain('Permission denied');
    expect([mode(dataDir), mode(join(dataDir, 'clickhouse'))]).toEqual([0o700, 0o700]);
  }, 120_000);

  it('refuses another user who points mintpipe at it in one line naming the directory, exit 2 (MINTPIPE_DATA_DIR is configuration), no stack', async () => {
    const dataDir = dataDirUnderSharedParent();
    const created = await runCli(['query', 'SELECT 1 AS one'], { MINTPIPE_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    expect(created.code, created.stderr).toBe(0);
    for (const command of [['status'], ['query', 'SELECT 1']]) {
      // Only the data dir decides (no REDIS_URL or other settings of the test run).
      const refused = asNobody('env', '-i', `PATH=${process.env.PATH}`, `MINTPIPE_DATA_DIR=${dataDir}`, 'LOG_LEVEL=warn', process.execPath, 'bin/mintpipe.js', ...command);
      expect([refused.status, refused.stderr]).toEqual([
        2,
        `mintpipe: ${dataDir}: owned by another user (uid 0), who could read and plant what mintpipe keeps there: set MINTPIPE_DATA_DIR to a directory of your own\n`,
      ]);
    }
  });

  it("refuses a data dir another user made (who could widen it again and plant a Redis record or a gateway in it), exit 2, before anything is kept there", async () => {
    const dataDir = dataDirUnderSharedParent();
    mkdirSync(dataDir, { mode: 0o777 });
    chownSync(dataDir, 65534, 65534);
    for (const command of [['status'], ['query', 'SELECT 1'], ['export', '--project', 'p1', '--from', '2026-08-01', '--to', '2026-08-02']]) {
      const refused = await runCli(command, { MINTPIPE_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
      expect([refused.code, refused.stderr], command.join(' ')).toEqual([
        2,
        `mintpipe: ${dataDir}: owned by another user (uid 65534), who could read and plant what mintpipe keeps there: set MINTPIPE_DATA_DIR to a directory of your own\n`,
      ]);
    }
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('narrows a data dir and a clickhouse/ left open to others to 0700 with a data_dir_narrowed line each', async () => {
    const dataDir = dataDirUnderSharedParent();
    mkdirSync(join(dataDir, 'clickhouse'), { recursive: true, mode: 0o755 });
    const result = await runCli(['query', 'SELECT 1', '--format', 'json'], { MINTPIPE_DATA_DIR: dataDir, LOG_LEVEL: 'warn', LOG_FORMAT: 'json' });
    expect(result.code, result.stderr).toBe(0);
    const narrowed = result.stderr
      .split('\n')
      .filter((line) => line.includes('"data_dir_narrowed"'))
      .map((line) => JSON.parse(line) as { path: string; from: string; to: string });
    expect(narrowed.map(({ path, from, to }) => ({ path, from, to }))).toEqual([
      { path: dataDir, from: '0755', to: '0700' },
      { path: join(dataDir, 'clickhouse'), from: '0755', to: '0700' },
    ]);
    expect([mode(dataDir), mode(join(dataDir, 'clickhouse'))]).toEqual([0o700, 0o700]);
    expect(asNobody('ls', dataDir).stderr).toContain('Permission denied');
  }, 120_000);

  it('creates a stale secret file others could read anew at 0600: the private Redis password of `status`', async () => {
    const dataDir = dataDirUnderSharedParent();
    mkdirSync(join(dataDir, 'redis'), { recursive: true, mode: 0o700 });
    const secretFiles = ['server.json', 'redis.conf'].map((name) => join(dataDir, 'redis', name));
    for (const file of secretFiles) writeFileSync(file, '{}', { mode: 0o644 });
    const before = secretFiles.map((file) => statSync(file).ino);
    const result = await runCli(['status', '--format', 'json'], { MINTPIPE_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { redis: string }).redis).toBe(`unix:${join(dataDir, 'redis', 'redis.sock')}`);
    for (const [i, file] of secretFiles.entries()) {
      expect(mode(file), file).toBe(0o600);
      // A new file, not the old one rewritten: whoever opened the old one does not see the new password.
      expect(statSync(file).ino, file).not.toBe(before[i]);
    }
    expect([mode(dataDir), mode(join(dataDir, 'redis')), mode(join(dataDir, 'redis', 'holders'))]).toEqual([0o700, 0o700, 0o700]);
  }, 120_000);
});
