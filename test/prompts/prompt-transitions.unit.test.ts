/**
 * The transition table, read as a specification: the moves listed here are every move a prompt
 * may make, the state of a final ambiguous prompt is its own, and the Lua copy the scripts check
 * against holds the same moves. (test/prompts/prompt-transitions.test.ts checks the scripts.)
 */
import { describe, expect, it } from 'vitest';
import { assertMove, canMove, LUA_MOVES, PROMPT_STATES, PROMPT_TRANSITIONS, stateOf, type PromptState } from '../../src/prompts/prompt-transitions.js';

/** Every move besides staying put, as `from → to`. */
const MOVES = [
  'absent → queued',
  'queued → sending',
  'queued → skipped',
  'queued → rejected',
  'queued → timed_out',
  'queued → cancelled',
  'queued → polling',
  'queued → ambiguous',
  'queued → completed',
  'queued → archived',
  'queued → failed',
  'sending → queued',
  'sending → polling',
  'sending → rejected',
  'sending → ambiguous',
  'sending → ambiguous/final',
  'polling → completed',
  'polling → archived',
  'polling → failed',
  'polling → timed_out',
  'ambiguous → ambiguous/final',
  'ambiguous/final → queued',
];

const STATES: PromptState[] = ['absent', 'queued', 'sending', 'polling', 'ambiguous', 'ambiguous/final', 'completed', 'archived', 'failed', 'timed_out', 'rejected', 'skipped', 'cancelled'];

describe('the transition table', () => {
  it('has every state, and no other', () => {
    expect([...PROMPT_STATES].sort()).toEqual([...STATES].sort());
  });

  it('allows exactly the listed moves, and staying in any state', () => {
    const allowed: string[] = [];
    for (const from of STATES) {
      for (const to of STATES) {
        if (from !== to && canMove(from, to)) allowed.push(`${from} → ${to}`);
      }
      expect(canMove(from, from)).toBe(true);
    }
    expect(allowed.sort()).toEqual([...MOVES].sort());
  });

  it('leaves no way out of a final state but resending a final ambiguous prompt', () => {
    for (const final of ['completed', 'archived', 'failed', 'timed_out', 'rejected', 'skipped', 'cancelled'] as const) {
      expect(PROMPT_TRANSITIONS[final]).toEqual([]);
    }
  });
});

describe('the state of a prompt', () => {
  it('is absent without a status, its own state for an ambiguous prompt made final, and its status otherwise', () => {
    expect(stateOf(undefined, false)).toBe('absent');
    expect(stateOf(undefined, true)).toBe('absent');
    expect(stateOf('ambiguous', true)).toBe('ambiguous/final');
    expect(stateOf('ambiguous', false)).toBe('ambiguous');
    expect(stateOf('completed', true)).toBe('completed');
    expect(stateOf('queued', false)).toBe('queued');
  });
});

describe('a move checked before Redis', () => {
  it('passes a listed move and throws on another, naming the prompt and the move', () => {
    expect(() => assertMove('p1', 'queued', 'sending')).not.toThrow();
    expect(() => assertMove('p1', 'polling', 'polling')).not.toThrow();
    expect(() => assertMove('p1', 'polling', 'queued')).toThrow(new Error('prompt p1: polling → queued is not a move the transition table lists'));
  });
});

describe('the Lua copy of the table', () => {
  /** The MOVES table the scripts read, as `from → to` lines. */
  function luaMoves(): string[] {
    const table = /local MOVES = \{([\s\S]*?)\}\nlocal function/.exec(LUA_MOVES)?.[1];
    expect(table).toBeDefined();
    const moves: string[] = [];
    const states: string[] = [];
    const entries = [...table!.matchAll(/\["([^"]+)"\] = \{([^}]*)\}/g)];
    // Lua needs a separator between entries: nothing else stands between them.
    expect(entries.map((e) => e[0]).join(',\n  ')).toBe(table);
    for (const [, from, targets] of entries) {
      states.push(from!);
      const tos = [...targets!.matchAll(/\["([^"]+)"\] = true/g)];
      expect(tos.map((t) => t[0]).join(', ')).toBe(targets);
      for (const [, to] of tos) moves.push(`${from} → ${to}`);
    }
    expect(states.sort()).toEqual([...STATES].sort());
    return moves;
  }

  it('holds the same moves as the table', () => {
    expect(luaMoves().sort()).toEqual([...MOVES].sort());
  });

  it('defines the state of a prompt and the check of a move the way the TypeScript does', () => {
    expect(LUA_MOVES).toContain(`local function prompt_state(status, done)
  if not status then return 'absent' end
  if status == 'ambiguous' and done == '1' then return 'ambiguous/final' end
  return status
end
local function move_allowed(from_status, from_done, to_status, to_done)
  local from = prompt_state(from_status, from_done)
  local to = prompt_state(to_status, to_done)
  if from == to then return true end
  return MOVES[from] ~= nil and MOVES[from][to] == true
end`);
  });
});
