/**
 * Holds the private Redis of a data dir with its event loop blocked, as a process busy with a huge
 * query is: acquires it, prints `ready`, blocks the thread for `blockMs` (no timer, no I/O runs),
 * then releases it and exits.
 * Usage: node --import tsx test/support/redis-holder.ts <dataDir> <blockMs>
 */
import { createLogger } from '../../src/logger.js';
import { acquireRedis } from '../../src/queue/private-redis.js';

const [dataDir, blockMs] = process.argv.slice(2);
if (!dataDir || !blockMs) throw new Error('usage: redis-holder.ts <dataDir> <blockMs>');

const handle = await acquireRedis({ dataDir, logger: createLogger({ level: 'silent' }) });
process.stdout.write('ready\n', () => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(blockMs));
  void handle.release().then(() => process.exit(0));
});
