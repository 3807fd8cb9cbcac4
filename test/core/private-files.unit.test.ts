import { chmodSync, lchownSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPrivateFile, PrivateDirError, prepareDataDir, privateDir, writePrivateFile } from '../../src/private-files.js';
import { fileTempDir } from '../support/test-env.js';

const mode = (path: string) => statSync(path).mode & 0o777;

/** A logger that keeps the fields of each warning. */
function recorder() {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, warn: (fields: Record<string, unknown>) => void lines.push(fields) };
}

// The widest umask there is: a mode left to it would come out 0777 / 0666.
let previousUmask = 0;
beforeEach(() => {
  previousUmask = process.umask(0);
});
afterEach(() => {
  process.umask(previousUmask);
});

describe('private files', () => {
  it.each(['0750', '0770', '0710', '0740'])('narrows a directory its group can enter (%s) to 0700: a group is other local users too', (octal) => {
    const dir = fileTempDir('private-group');
    chmodSync(dir, parseInt(octal, 8));
    const log = recorder();
    privateDir(dir, log);
    expect(mode(dir)).toBe(0o700);
    expect(log.lines).toEqual([{ event: 'data_dir_narrowed', path: dir, from: octal, to: '0700' }]);
  });

  it('makes a missing directory, and the parents it needs, 0700 whatever the umask', () => {
    const root = fileTempDir('private');
    privateDir(join(root, 'a', 'b'));
    expect([mode(join(root, 'a')), mode(join(root, 'a', 'b'))]).toEqual([0o700, 0o700]);
  });

  it('narrows an existing directory others can enter to 0700, saying so once as data_dir_narrowed', () => {
    const dir = fileTempDir('private');
    chmodSync(dir, 0o755);
    const logger = recorder();
    privateDir(dir, logger);
    privateDir(dir, logger);
    expect(mode(dir)).toBe(0o700);
    expect(logger.lines).toEqual([{ event: 'data_dir_narrowed', path: dir, from: '0755', to: '0700' }]);
  });

  it('prepares a data dir: narrows it and the clickhouse/ and redis/ made in it before, and creates it only when asked', () => {
    const dataDir = join(fileTempDir('private'), 'data');
    prepareDataDir(dataDir, { create: false });
    expect(() => statSync(dataDir)).toThrow(/ENOENT/);
    mkdirSync(join(dataDir, 'clickhouse'), { recursive: true, mode: 0o755 });
    mkdirSync(join(dataDir, 'redis'), { mode: 0o777 });
    const logger = recorder();
    prepareDataDir(dataDir, { logger, create: false });
    expect([mode(dataDir), mode(join(dataDir, 'clickhouse')), mode(join(dataDir, 'redis'))]).toEqual([0o700, 0o700, 0o700]);
    expect(logger.lines.map((l) => [l.path, l.from])).toEqual([
      [dataDir, '0755'],
      [join(dataDir, 'clickhouse'), '0755'],
      [join(dataDir, 'redis'), '0777'],
    ]);
  });

  it('refuses, in one line, a data dir path that is a file', () => {
    const file = join(fileTempDir('private'), 'file');
    writeFileSync(file, '');
    expect(() => privateDir(file)).toThrow(PrivateDirError);
    expect(() => privateDir(file)).toThrow(`${file}: not a directory (mintpipe keeps its data there; set MINTPIPE_DATA_DIR to a directory)`);
  });

  it('refuses a data dir reached through a symlink another user planted, and leaves its target alone', () => {
    const shared = fileTempDir('private-shared');
    chmodSync(shared, 0o777);
    // Another user's link, in a directory everyone may write, to a directory of ours.
    const ours = join(fileTempDir('private-ours'), 'home');
    mkdirSync(ours, { mode: 0o755 });
    const planted = join(shared, 'data');
    symlinkSync(ours, planted);
    lchownSync(planted, 65534, 65534);
    for (const path of [planted, join(planted, 'redis')]) {
      const error = (() => {
        try {
          privateDir(path);
        } catch (err) {
          return err;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(PrivateDirError);
      expect((error as Error).message).toBe(
        `${path}: ${planted} is a symlink owned by another user (uid 65534), who can point it anywhere: set MINTPIPE_DATA_DIR to a path of your own`,
      );
    }
    expect(mode(ours)).toBe(0o755);
    expect(readdirSync(ours)).toEqual([]);
  });

  it('follows a symlink of its own to the data dir', () => {
    const ours = join(fileTempDir('private-target'), 'data');
    mkdirSync(ours, { mode: 0o700 });
    const link = join(fileTempDir('private-link'), 'data');
    symlinkSync(ours, link);
    privateDir(join(link, 'redis'));
    expect(mode(join(ours, 'redis'))).toBe(0o700);
  });

  it('writes a file as a new 0600 file whatever the umask, also over an old one others could read', () => {
    const dir = fileTempDir('private');
    const path = join(dir, 'server.json');
    writeFileSync(path, 'old secret', { mode: 0o644 });
    // Another user who opened the old file (a hard link stands for their handle) keeps only the old text.
    linkSync(path, join(dir, 'their-handle'));
    writePrivateFile(path, 'new secret');
    expect(mode(path)).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe('new secret');
    expect(readFileSync(join(dir, 'their-handle'), 'utf8')).toBe('old secret');
    writePrivateFile(join(dir, 'fresh'), 'x');
    expect(mode(join(dir, 'fresh'))).toBe(0o600);
  });

  it('creates a new 0600 file whatever the umask, and keeps one already there, leaving nothing partial', () => {
    const dir = fileTempDir('private');
    const path = join(dir, 'dashboard-token');
    expect(createPrivateFile(path, 'first')).toBe(true);
    expect(mode(path)).toBe(0o600);
    expect(createPrivateFile(path, 'second')).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe('first');
    expect(readdirSync(dir)).toEqual(['dashboard-token']);
  });
});
