/**
 * The assistant data of a window as served: conversations (turns) with the knobs applied, the
 * caller stats they add up to, and the threads a client may ask for. With `extraFields`, turns
 * carry `conversationId` and a thread is a whole conversation (2–8 messages); without, no turn
 * names its conversation, so each turn is its own thread (keyed by the turn's id, 2 messages).
 * A thread's messages are its turns' questions and answers, oldest first, with the same text.
 */
import type { ResolvedAnalyticsKnobs } from './analytics-knobs.js';
import { itemCountFor } from './analytics-knobs.js';
import { computeAssistant, type AssistantRow, type AssistantTurn } from './compute-assistant.js';
import { approximation, hasInvalidText, knobKey, seededPermutation, withLoneSurrogate } from './knob-draws.js';
import { hash2, hashString } from './seeded-random.js';
import { ulidOf } from './ulid.js';
import type { WindowRef } from './window-ref.js';

export interface CallerStats {
  web: number;
  api: number;
  other: number;
  total: number;
  [extra: string]: unknown;
}

export interface ThreadMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  createdAt: string;
  [extra: string]: unknown;
}

export interface AssistantThread {
  threadId: string;
  createdAt: string;
  messages: ThreadMessage[];
}

export interface AssistantWindow {
  /** Every row in serving order. */
  conversations: AssistantRow[];
  callerStats: CallerStats;
  /** By thread id: conversationId with extra fields, else each row's id. */
  threads: Map<string, AssistantThread>;
}

/** Which draw of the caller stats (rows use their index, ≥ 0). */
const CALLER_STATS_ITEM = -1;

export function servedAssistant(seed: number, knobs: ResolvedAnalyticsKnobs, ref: WindowRef): AssistantWindow {
  const count = itemCountFor(knobs, 'assistant', ref.projectId, ref.dateFrom, ref.dateTo);
  const key = knobKey(seed, 'assistant', ref.projectId, ref.fromMs, ref.toMs, ref.revision);
  const turns = computeAssistant(seed, ref.projectId, ref.fromMs, ref.toMs, count, ref.revision).map((turn, i) => {
    const row = { ...turn.row };
    if (hasInvalidText(key, i, knobs.invalidText)) {
      if (i % 2 === 0) row.query = withLoneSurrogate(row.query, key, i);
      else row.response = withLoneSurrogate(row.response, key, i);
    }
    if (knobs.extraFields) row.conversationId = turn.conversationId;
    return { ...turn, row };
  });
  const rows = turns.map((turn) => turn.row);
  const conversations = knobs.shuffle ? Array.from(seededPermutation(rows.length, key), (i) => rows[i]!) : rows;
  return { conversations, callerStats: callerStats(knobs, key, turns), threads: threads(knobs, key, turns) };
}

function callerStats(knobs: ResolvedAnalyticsKnobs, key: number, turns: readonly AssistantTurn[]): CallerStats {
  const stats: CallerStats = { web: 0, api: 0, other: 0, total: turns.length };
  for (const turn of turns) stats[turn.caller]++;
  // Approximate counts here are half-units only: the spec sets no bounds between the four.
  if (approximation(key, CALLER_STATS_ITEM, knobs.approximateCounts) !== 'exact') {
    stats.web += 0.5;
    stats.total += 0.5;
  }
  if (knobs.extraFields) stats._sampleRate = 1;
  return stats;
}

function threads(knobs: ResolvedAnalyticsKnobs, key: number, turns: readonly AssistantTurn[]): Map<string, AssistantThread> {
  const byThread = new Map<string, AssistantTurn[]>();
  for (const turn of turns) {
    const threadId = knobs.extraFields ? turn.conversationId : turn.row.id;
    const list = byThread.get(threadId);
    if (list) list.push(turn);
    else byThread.set(threadId, [turn]);
  }
  const result = new Map<string, AssistantThread>();
  for (const [threadId, list] of byThread) {
    list.sort((a, b) => a.atMs - b.atMs || (a.row.id < b.row.id ? -1 : 1));
    const messages = list.flatMap((turn, n) => [
      message(knobs, key, threadId, 2 * n, 'user', turn.row.query, turn.atMs),
      message(knobs, key, threadId, 2 * n + 1, 'assistant', turn.row.response, turn.answeredAtMs),
    ]);
    result.set(threadId, { threadId, createdAt: new Date(list[0]!.atMs).toISOString(), messages });
  }
  return result;
}

function message(
  knobs: ResolvedAnalyticsKnobs,
  key: number,
  threadId: string,
  n: number,
  role: 'user' | 'assistant',
  content: string,
  atMs: number,
): ThreadMessage {
  const h = hash2(key, hash2(hashString(threadId), n));
  const id = ulidOf(atMs, hash2(h, 1), hash2(h, 2), n);
  const result: ThreadMessage = { id, role, content, createdAt: new Date(atMs).toISOString() };
  if (knobs.extraFields) result._sampleRate = 1;
  return result;
}
