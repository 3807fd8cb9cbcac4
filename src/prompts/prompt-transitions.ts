/**
 * Every state a prompt's record may take and every move between them, declared once. The store
 * refuses a move this table does not list before it reaches Redis, and the Lua scripts carry the
 * same table (`LUA_MOVES`), so a script refuses it too; test/prompts/prompt-transitions.test.ts
 * runs every script from every state against Redis and compares what it did with this table.
 *
 * A state is the record's status, except that an `ambiguous` prompt is open while its agent job
 * is still observed and final (`ambiguous/final`) once that ended; every other final status is
 * final by itself. `absent`: no record yet.
 */
import type { PromptStatus } from './prompt-status.js';

export type PromptState = 'absent' | PromptStatus | 'ambiguous/final';

/** Where each state may go (a state staying as it is, with other fields changed, is no move). */
export const PROMPT_TRANSITIONS = {
  absent: ['queued'],
  queued: [
    // The send step: claimed for the POST; ended without sending (chain stopped, job archived or
    // gone, active past the deadline, failing checks, the queue gave up); cancelled.
    'sending',
    'skipped',
    'rejected',
    'timed_out',
    'cancelled',
    // Taken over from the ledger of record (reconcile-ledger.ts, rebuild-batch.ts): a row that
    // never moved in Redis takes the state the ledger knows, final or still in flight.
    'polling',
    'ambiguous',
    'completed',
    'archived',
    'failed',
  ],
  sending: [
    // 429, a connection never made, no ledger mark, an auth error: not sent, so back to queued.
    'queued',
    'polling',
    'rejected',
    // Maybe received: a message is observed on its job; a create (no job to observe) ends here.
    'ambiguous',
    'ambiguous/final',
  ],
  polling: ['completed', 'archived', 'failed', 'timed_out'],
  ambiguous: ['ambiguous/final'],
  // `prompts resend`: a new attempt.
  'ambiguous/final': ['queued'],
  completed: [],
  archived: [],
  failed: [],
  timed_out: [],
  rejected: [],
  skipped: [],
  cancelled: [],
} as const satisfies Record<PromptState, readonly PromptState[]>;

export const PROMPT_STATES = Object.keys(PROMPT_TRANSITIONS) as PromptState[];

/** The state of a record with this status and `done` flag (undefined status: no record). */
export function stateOf(status: PromptStatus | undefined, done: boolean): PromptState {
  if (status === undefined) return 'absent';
  return status === 'ambiguous' && done ? 'ambiguous/final' : status;
}

/** True when the table lets a record move from `from` to `to` (staying is always allowed). */
export function canMove(from: PromptState, to: PromptState): boolean {
  return from === to || (PROMPT_TRANSITIONS[from] as readonly PromptState[]).includes(to);
}

/** Throws when the table does not list the move: a bug in the caller, never a race. */
export function assertMove(promptId: string, from: PromptState, to: PromptState): void {
  if (!canMove(from, to)) throw new Error(`prompt ${promptId}: ${from} → ${to} is not a move the transition table lists`);
}

/**
 * The table and the state function as Lua, for the scripts that change a status: `move_allowed(
 * from_status, from_done, to_status, to_done)` with Redis' values (a missing status: no record).
 */
export const LUA_MOVES = `
local MOVES = {${PROMPT_STATES.map((s) => `[${JSON.stringify(s)}] = {${PROMPT_TRANSITIONS[s].map((t) => `[${JSON.stringify(t)}] = true`).join(', ')}}`).join(',\n  ')}}
local function prompt_state(status, done)
  if not status then return 'absent' end
  if status == 'ambiguous' and done == '1' then return 'ambiguous/final' end
  return status
end
local function move_allowed(from_status, from_done, to_status, to_done)
  local from = prompt_state(from_status, from_done)
  local to = prompt_state(to_status, to_done)
  if from == to then return true end
  return MOVES[from] ~= nil and MOVES[from][to] == true
end
`;
