/**
 * The transition table against the code that moves prompts: every Lua script of the store runs on
 * a real Redis from every state with every status it could be asked to write, and each move it
 * made must be one the table lists; each move the table lists must be one some script makes (the
 * table is not wider than the engine). The store's TypeScript refuses an unlisted move before
 * Redis sees it.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LuaScript } from '../../src/prompts/lua-script.js';
import * as scripts from '../../src/prompts/prompt-scripts.js';
import { PROMPT_STATUSES, type PromptStatus } from '../../src/prompts/prompt-status.js';
import { PromptStore } from '../../src/prompts/prompt-store.js';
import { canMove, PROMPT_STATES, PROMPT_TRANSITIONS, stateOf, type PromptState } from '../../src/prompts/prompt-transitions.js';

let redis: Redis;
let store: PromptStore;
const batchId = 'b0123456789abcde';

beforeAll(() => {
  redis = new Redis(process.env.REDIS_URL!);
  store = new PromptStore(redis, `{pt-${randomBytes(4).toString('hex')}}`);
});

afterAll(async () => {
  const keys = await redis.keys(`${store.keys.batch(batchId).split('}')[0]}}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

/** Every status a caller could ask for, open and final. */
const TARGETS = PROMPT_STATUSES.flatMap((status) => [
  { status, done: '0' },
  { status, done: '1' },
]);

/** Per script: the calls to try on a prompt (its key `prompt`), each as keys and args. */
type Calls = (prompt: string, id: string) => Array<{ keys: string[]; args: Array<string | number> }>;

const CALLS: Record<keyof typeof scripts, Calls> = {
  CREATE_PROMPT: (prompt, id) => [{ keys: [prompt, store.keys.batchPrompts(batchId), store.keys.batchCounts(batchId)], args: [0, id, 'status', 'queued', 'attempt', '0', 'done', '0'] }],
  TRANSITION: (prompt) =>
    TARGETS.flatMap((t) => [
      { keys: [prompt, store.keys.batchCounts(batchId), store.keys.batch(batchId)], args: ['0', '*', t.status, t.done, 'claim-1'] },
      { keys: [prompt, store.keys.batchCounts(batchId), store.keys.batch(batchId)], args: ['0', '*', t.status, t.done, ''] },
    ]),
  ADOPT: (prompt) => TARGETS.map((t) => ({ keys: [prompt, store.keys.batchCounts(batchId)], args: ['0', t.status, t.done, 1, 0] })),
  RESEND: (prompt, id) => [{ keys: [prompt, store.keys.batchCounts(batchId), store.keys.lane('l')], args: [id, 'error'] }],
  PATCH: (prompt) => PROMPT_STATUSES.map((s) => ({ keys: [prompt], args: ['0', s, 'status', 'queued', 'done', '0'] })),
  SET_HELD: (prompt) => [0, 1].map((held) => ({ keys: [prompt, store.keys.batchCounts(batchId)], args: [held] })),
  MARK_SYNCED: (prompt) => [{ keys: [prompt], args: [9] }],
  LANE_ENTER: (prompt, id) => [{ keys: [prompt, store.keys.lane('l')], args: [id] }],
  LANE_LEAVE: (_prompt, id) => [{ keys: [store.keys.lane('l')], args: [id] }],
};

/** The record's fields for a state (`absent`: no record). */
function fieldsOf(state: PromptState): string[] | undefined {
  if (state === 'absent') return undefined;
  const status = state === 'ambiguous/final' ? 'ambiguous' : state;
  const done = state === 'ambiguous/final' || PROMPT_TRANSITIONS[state].length === 0 ? '1' : '0';
  return ['status', status, 'done', done, 'attempt', '0', 'version', '1', 'claim', 'claim-1', 'laned', '0'];
}

async function stateIn(prompt: string): Promise<PromptState> {
  const [status, done] = await redis.hmget(prompt, 'status', 'done');
  return stateOf((status ?? undefined) as PromptStatus | undefined, done === '1');
}

/** Runs every call of every script from every state; returns the moves made, as `from → to`, with the script that made each. */
async function movesMade(only: Partial<Record<keyof typeof scripts, LuaScript>> = scripts): Promise<Map<string, string>> {
  const made = new Map<string, string>();
  let n = 0;
  for (const [name, script] of Object.entries(only) as Array<[keyof typeof scripts, LuaScript]>) {
    for (const from of PROMPT_STATES) {
      const count = CALLS[name]('', '').length;
      for (let i = 0; i < count; i++) {
        const id = `p${n++}`;
        const prompt = store.keys.prompt(id);
        const fields = fieldsOf(from);
        if (fields) await redis.hset(prompt, ...fields);
        await redis.hset(store.keys.batch(batchId), 'total', '1000000');
        const call = CALLS[name](prompt, id)[i]!;
        await script.run(redis, call.keys, call.args);
        const to = await stateIn(prompt);
        if (to !== from && !made.has(`${from} → ${to}`)) made.set(`${from} → ${to}`, name);
        await redis.del(prompt, store.keys.lane('l'));
      }
    }
  }
  return made;
}

describe('the prompt transition table', () => {
  it('names every status, and the final statuses are the states with no way out', () => {
    for (const status of PROMPT_STATUSES) expect(PROMPT_STATES).toContain(status);
    const deadEnds = PROMPT_STATES.filter((s) => PROMPT_TRANSITIONS[s].length === 0);
    expect(deadEnds.sort()).toEqual(['archived', 'cancelled', 'completed', 'failed', 'rejected', 'skipped', 'timed_out']);
  });

  it('covers every script of the store, so none moves prompts unchecked', () => {
    expect(Object.keys(CALLS).sort()).toEqual(Object.keys(scripts).sort());
  });

  it('is exactly what the scripts do: every move a script makes from any state is listed, and every listed move is made by one', async () => {
    const made = await movesMade();
    const unlisted = [...made].filter(([move]) => {
      const [from, to] = move.split(' → ') as [PromptState, PromptState];
      return !canMove(from, to);
    });
    expect(unlisted).toEqual([]);
    const listed = PROMPT_STATES.flatMap((from) => PROMPT_TRANSITIONS[from].map((to) => `${from} → ${to}`));
    expect(listed.filter((move) => !made.has(move))).toEqual([]);
  });

  it('is held by the store before Redis: an unlisted move throws, naming the prompt and the move', async () => {
    await expect(store.transition('p-x', batchId, { attempt: 0, from: ['polling'], to: 'queued' })).rejects.toThrow(
      'prompt p-x: polling → queued is not a move the transition table lists',
    );
    await expect(store.adopt({ promptId: 'p-y', batchId, attempt: 0 }, { status: 'ambiguous', done: true, minVersion: 1, attempt: 0, set: {} })).rejects.toThrow(
      'prompt p-y: queued → ambiguous/final is not a move the transition table lists',
    );
  });
});
