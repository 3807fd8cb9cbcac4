/**
 * Where the private redis-server listens: a Unix socket, never a TCP port, so that no other local
 * user can reach it (a port on loopback is anyone's to connect to, or to squat on once the server
 * stops). The socket lives in the 0700 `redis/` directory of the data dir; a socket path longer
 * than Linux allows (107 bytes) goes to a 0700 directory of ours under the temp dir instead, named
 * by our uid and the data dir, and used only after checking that it is ours and private.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MintpipeError } from '../errors.js';

/** The longest path a Unix socket address holds on Linux (108 bytes with the terminating NUL). */
export const MAX_SOCKET_PATH_BYTES = 107;
const SOCKET_NAME = 'redis.sock';

/** No private place for the socket: the fallback directory is someone else's or not private. */
export class RedisSocketDirError extends MintpipeError {
  override name = 'RedisSocketDirError';
}

/** The socket path of the private server whose data is in `redisDir` (under `dataDir`). */
export function privateSocketPath(redisDir: string, dataDir: string, tempDir = tmpdir()): string {
  const inDataDir = join(redisDir, SOCKET_NAME);
  if (Buffer.byteLength(inDataDir) <= MAX_SOCKET_PATH_BYTES) return inDataDir;
  const uid = process.getuid?.() ?? 0;
  const digest = createHash('sha256').update(dataDir).digest('hex').slice(0, 16);
  const dir = join(tempDir, `mintpipe-${uid}-${digest}`);
  const socket = join(dir, SOCKET_NAME);
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH_BYTES) {
    throw new RedisSocketDirError(`the private Redis socket needs a path of at most ${MAX_SOCKET_PATH_BYTES} bytes: ${inDataDir} and ${socket} are longer (use a shorter MINTPIPE_DATA_DIR or TMPDIR)`);
  }
  ownPrivateDir(dir, uid);
  return socket;
}

/** Makes `dir` (0700), or checks that the one there is a directory of `uid` with mode 0700. */
function ownPrivateDir(dir: string, uid: number): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  // lstat: a symlink there (planted by another user) is refused, not followed.
  const stat = lstatSync(dir);
  const mode = stat.mode & 0o777;
  if (!stat.isDirectory() || stat.uid !== uid || mode !== 0o700) {
    const what = !stat.isDirectory() ? 'not a directory' : stat.uid !== uid ? `owned by uid ${stat.uid}, not ${uid}` : `mode 0${mode.toString(8)}, not 0700`;
    throw new RedisSocketDirError(`${dir}: ${what}; the private Redis socket will not be put there (remove it, or use a shorter MINTPIPE_DATA_DIR)`);
  }
}
