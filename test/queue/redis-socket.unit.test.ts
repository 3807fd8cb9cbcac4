import { chmodSync, chownSync, mkdirSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { privateSocketPath, RedisSocketDirError } from '../../src/queue/redis-socket.js';
import { fileTempDir } from '../support/test-env.js';

const LONG = 'x'.repeat(100);

describe('the private Redis socket path', () => {
  it('is redis.sock in the redis dir when that path fits in a socket address', () => {
    expect(privateSocketPath('/data/redis', '/data')).toBe('/data/redis/redis.sock');
  });

  it('is in a 0700 directory of ours under the temp dir, named by uid and data dir, when it does not fit', () => {
    const temp = fileTempDir('sock');
    const socket = privateSocketPath(`/data/${LONG}/redis`, `/data/${LONG}`, temp);
    expect(socket).toMatch(new RegExp(`^${temp}/mintpipe-${process.getuid!()}-[0-9a-f]{16}/redis\\.sock$`));
    expect(statSync(join(socket, '..')).mode & 0o777).toBe(0o700);
    // The same data dir finds the same place; another one gets its own.
    expect(privateSocketPath(`/data/${LONG}/redis`, `/data/${LONG}`, temp)).toBe(socket);
    expect(privateSocketPath(`/other/${LONG}/redis`, `/other/${LONG}`, temp)).not.toBe(socket);
  });

  it('refuses a directory there that others can enter, that another user owns, or that is a symlink', () => {
    const place = (temp: string) => {
      const socket = privateSocketPath(`/data/${LONG}/redis`, `/data/${LONG}`, temp);
      return join(socket, '..');
    };
    const wide = fileTempDir('sock');
    chmodSync(place(wide), 0o755);
    expect(() => place(wide)).toThrow(RedisSocketDirError);
    expect(() => place(wide)).toThrow(/mode 0755, not 0700; the private Redis socket will not be put there/);

    // Planted by another local user (as root, CI can make one).
    const foreign = fileTempDir('sock');
    chownSync(place(foreign), 65534, 65534);
    expect(() => place(foreign)).toThrow(new RegExp(`owned by uid 65534, not ${process.getuid!()}`));

    const linked = fileTempDir('sock');
    const name = place(fileTempDir('sock')).split('/').pop()!;
    mkdirSync(join(linked, 'elsewhere'), { mode: 0o700 });
    symlinkSync(join(linked, 'elsewhere'), join(linked, name));
    expect(() => place(linked)).toThrow(/not a directory/);
  });

  it('refuses a temp dir too deep for any socket path, naming both paths', () => {
    expect(() => privateSocketPath(`/data/${LONG}/redis`, `/data/${LONG}`, `/tmp/${LONG}`)).toThrow(/needs a path of at most 107 bytes/);
  });
});
