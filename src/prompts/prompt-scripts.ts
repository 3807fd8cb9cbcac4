/**
 * The atomic steps of the prompt state machine, as Lua. Each guards on the record's `attempt`
 * (a job of an older send generation must not touch a resent prompt) and on `done` (a final
 * outcome never changes), and keeps the batch's per-status counts in step with the record.
 */
import { LuaScript } from './lua-script.js';
import { LUA_MOVES } from './prompt-transitions.js';

/**
 * Creates a prompt unless it exists. KEYS: prompt, batch ids, batch counts.
 * ARGV: position, promptId, field/value pairs. Returns 1 when created.
 */
export const CREATE_PROMPT = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('ZADD', KEYS[2], 'NX', ARGV[1], ARGV[2])
  return 0
end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[2])
redis.call('HINCRBY', KEYS[3], 'queued', 1)
return 1
`);

/**
 * Moves a prompt to a new status. KEYS: prompt, batch counts, batch meta.
 * ARGV: attempt, allowed current statuses (comma-separated, or *), new status, done (1/0), the
 * send claim the record must still carry (empty: none asked), field/value pairs (an empty value
 * deletes the field).
 * Returns {1, status, fields, finished} on success (finished: 1 when this made every prompt of
 * the batch final, so the caller sets its expiry without reading the batch again), {0, status}
 * when the current status is not allowed, {-1} when missing, {-2, status} for another attempt,
 * {-3, status} when already final, {-4, status} when the record no longer carries the claim,
 * {-5, status} when the transition table does not list the move.
 */
export const TRANSITION = new LuaScript(`${LUA_MOVES}
local cur = redis.call('HMGET', KEYS[1], 'status', 'attempt', 'version', 'done')
if not cur[1] then return {-1} end
if cur[2] ~= ARGV[1] then return {-2, cur[1]} end
if cur[4] == '1' then return {-3, cur[1]} end
if ARGV[2] ~= '*' then
  local allowed = false
  for s in string.gmatch(ARGV[2], '[^,]+') do
    if s == cur[1] then allowed = true end
  end
  if not allowed then return {0, cur[1]} end
end
if ARGV[5] ~= '' and redis.call('HGET', KEYS[1], 'claim') ~= ARGV[5] then return {-4, cur[1]} end
if not move_allowed(cur[1], cur[4], ARGV[3], ARGV[4]) then return {-5, cur[1]} end
redis.call('HSET', KEYS[1], 'status', ARGV[3], 'version', tonumber(cur[3] or '0') + 1)
for i = 6, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i]) else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
local finished = 0
if ARGV[4] == '1' then
  redis.call('HSET', KEYS[1], 'done', '1')
  local done = redis.call('HINCRBY', KEYS[2], '_done', 1)
  local total = tonumber(redis.call('HGET', KEYS[3], 'total') or '')
  if total and done >= total then finished = 1 end
  -- A held prompt that ends (cancelled, skipped) is held no more.
  if redis.call('HGET', KEYS[1], 'held') == '1' then
    redis.call('HDEL', KEYS[1], 'held')
    redis.call('HINCRBY', KEYS[2], '_held', -1)
  end
end
if cur[1] ~= ARGV[3] then
  redis.call('HINCRBY', KEYS[2], cur[1], -1)
  redis.call('HINCRBY', KEYS[2], ARGV[3], 1)
end
return {1, ARGV[3], redis.call('HGETALL', KEYS[1]), finished}
`);

/**
 * Updates observation fields without a status change (no new version). KEYS: prompt.
 * ARGV: attempt, expected status, field/value pairs (empty deletes). Returns 1 when applied, 0
 * when the prompt moved on, -1 when asked to change its state (a move goes through TRANSITION).
 */
export const PATCH = new LuaScript(`
local cur = redis.call('HMGET', KEYS[1], 'status', 'attempt', 'done')
if not cur[1] or cur[2] ~= ARGV[1] or cur[1] ~= ARGV[2] or cur[3] == '1' then return 0 end
for i = 3, #ARGV, 2 do
  if ARGV[i] == 'status' or ARGV[i] == 'done' or ARGV[i] == 'attempt' or ARGV[i] == 'version' then return -1 end
end
for i = 3, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i]) else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 1
`);

/**
 * Records that the warehouse has these versions (one call for a whole group-committed insert).
 * KEYS: prompts. ARGV: their versions, in the same order. Returns how many prompts exist.
 */
export const MARK_SYNCED = new LuaScript(`
local found = 0
for i = 1, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    found = found + 1
    if tonumber(redis.call('HGET', KEYS[i], 'synced') or '0') < tonumber(ARGV[i]) then
      redis.call('HSET', KEYS[i], 'synced', ARGV[i])
    end
  end
end
return found
`);

/**
 * Appends a prompt to its agent job's lane once (not when final or already in it).
 * KEYS: prompt, lane. ARGV: promptId. Returns {1, head, entered an empty lane (1/0)} or {-1}
 * when the prompt is missing.
 */
export const LANE_ENTER = new LuaScript(`
local f = redis.call('HMGET', KEYS[1], 'status', 'done', 'laned')
if not f[1] then return {-1} end
local first = 0
if f[2] ~= '1' and f[3] ~= '1' then
  if redis.call('RPUSH', KEYS[2], ARGV[1]) == 1 then first = 1 end
  redis.call('HSET', KEYS[1], 'laned', '1')
end
return {1, redis.call('LINDEX', KEYS[2], 0) or '', first}
`);

/** Takes a final prompt out of its lane. KEYS: lane. ARGV: promptId. Returns the new head or ''. */
export const LANE_LEAVE = new LuaScript(`
redis.call('LREM', KEYS[1], 0, ARGV[1])
return redis.call('LINDEX', KEYS[1], 0) or ''
`);

/**
 * Makes a final ambiguous prompt a new send attempt. KEYS: prompt, batch counts, its lane.
 * ARGV: promptId, then the observation fields to clear. Returns {1, fields} or {0}. A prompt still in its lane (an
 * ambiguous chain step holding its chain) stays there, at the head; any other enters its lane
 * again, at the back.
 */
export const RESEND = new LuaScript(`${LUA_MOVES}
local cur = redis.call('HMGET', KEYS[1], 'status', 'done', 'attempt', 'version')
if cur[1] ~= 'ambiguous' or cur[2] ~= '1' or not move_allowed(cur[1], cur[2], 'queued', '0') then return {0} end
local inLane = redis.call('LPOS', KEYS[3], ARGV[1])
redis.call('HSET', KEYS[1], 'status', 'queued', 'done', '0', 'laned', inLane and '1' or '0',
  'attempt', tonumber(cur[3] or '0') + 1, 'version', tonumber(cur[4] or '0') + 1)
for i = 2, #ARGV do redis.call('HDEL', KEYS[1], ARGV[i]) end
redis.call('HINCRBY', KEYS[2], 'ambiguous', -1)
redis.call('HINCRBY', KEYS[2], 'queued', 1)
redis.call('HINCRBY', KEYS[2], '_done', -1)
return {1, redis.call('HGETALL', KEYS[1])}
`);

/**
 * Holds a queued prompt behind an ambiguous step of its chain, or releases it. KEYS: prompt, batch
 * counts. ARGV: 1 to hold, 0 to release. Keeps the batch's `_held` count. Returns 1 when changed.
 */
export const SET_HELD = new LuaScript(`
local f = redis.call('HMGET', KEYS[1], 'status', 'done', 'held')
if not f[1] then return -1 end
if ARGV[1] == '1' then
  if f[2] == '1' or f[3] == '1' then return 0 end
  redis.call('HSET', KEYS[1], 'held', '1')
  redis.call('HINCRBY', KEYS[2], '_held', 1)
  return 1
end
if f[3] ~= '1' then return 0 end
redis.call('HDEL', KEYS[1], 'held')
redis.call('HINCRBY', KEYS[2], '_held', -1)
return 1
`);

/**
 * Takes over what the ledger knows of a prompt Redis had forgotten (recovery after a Redis loss,
 * or a row sent by an earlier batch). Applies only to a record that never moved here: queued, not
 * in a lane, not final, of the expected attempt. KEYS: prompt, batch counts. ARGV: expected
 * attempt, new status, done (1/0), lowest version to take, attempt to take, field/value pairs
 * (empty deletes). Returns {1, fields} or {0, status} (also when the transition table does not list
 * the move).
 */
export const ADOPT = new LuaScript(`${LUA_MOVES}
local cur = redis.call('HMGET', KEYS[1], 'status', 'attempt', 'version', 'done', 'laned')
if not cur[1] then return {0} end
if cur[1] ~= 'queued' or cur[2] ~= ARGV[1] or cur[4] == '1' or cur[5] == '1' then return {0, cur[1]} end
if not move_allowed(cur[1], cur[4], ARGV[2], ARGV[3]) then return {0, cur[1]} end
local version = math.max(tonumber(cur[3] or '0') + 1, tonumber(ARGV[4]))
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'version', version, 'attempt', ARGV[5])
for i = 6, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i]) else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
if ARGV[3] == '1' then
  redis.call('HSET', KEYS[1], 'done', '1')
  redis.call('HINCRBY', KEYS[2], '_done', 1)
end
if ARGV[2] ~= 'queued' then
  redis.call('HINCRBY', KEYS[2], 'queued', -1)
  redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
end
return {1, redis.call('HGETALL', KEYS[1])}
`);
