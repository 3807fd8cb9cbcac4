/**
 * Atomic steps on a batch's meta hash (the prompts' own state machine is prompt-scripts.ts).
 * Same hash tag as every prompt key (prompt-keys.ts), so a cluster runs them on one node.
 */
import { LuaScript } from './lua-script.js';

/**
 * Records why the batch's job could not start it, on a batch Redis still has (a failing recover
 * job of a batch Redis lost must not leave a meta hash without a batch). KEYS: batch meta.
 * ARGV: reason, time (ms). Returns 1 when recorded, 0 when the batch is gone.
 */
export const RECORD_START_FAILURE = new LuaScript(`
if redis.call('HEXISTS', KEYS[1], 'total') == 0 then return 0 end
redis.call('HSET', KEYS[1], 'startFailed', ARGV[1], 'startFailedAt', ARGV[2])
return 1
`);
