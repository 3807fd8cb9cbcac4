/**
 * Assistant threads: `GET assistant/threads/:threadId`, one conversation's transcript. A thread id
 * that is not a ULID is a 400; a thread of no assistant window of the project served so far is a
 * 404 (a thread id names no window, so the emulator knows threads once it served them). A thread's
 * messages are its turns' questions and answers, oldest first, with the same text; with
 * `extraFields` a thread is a whole conversation (2–8 messages), without it one turn (2 messages).
 */
import type { LookupFixture } from '../analytics-dataset.js';
import type { ResolvedAnalyticsKnobs } from '../analytics-knobs.js';
import { errorAnswer, type EmulatorContext } from '../emulator-context.js';
import { hash2, hashString } from '../seeded-random.js';
import { isUlid, ulidOf } from '../ulid.js';
import type { WindowRef } from '../window-ref.js';
import { cachedAssistant, servedAssistant, threadIdOf, type AssistantTurn, type AssistantWindow } from './assistant.js';

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

export const assistantThreads: LookupFixture<{ items: AssistantThread[] }> = {
  kind: 'lookup',
  path: 'assistant/threads/:threadId',
  answer: (ctx, projectId, { threadId = '' }) => {
    if (!isUlid(threadId)) return errorAnswer(400, 'Invalid thread ID', ['threadId must be a ULID']);
    const ref = ctx.windows.threadWindow(projectId, threadId);
    const thread = ref && cachedThreads(ctx, ref).get(threadId);
    if (!thread) return errorAnswer(404, `Thread ${threadId} not found`);
    return { status: 200, body: structuredClone(thread) };
  },
  truth: (options, ref) => ({ items: [...windowThreads(options, servedAssistant(options.seed, options, ref)).values()] }),
};

function cachedThreads(ctx: EmulatorContext, ref: WindowRef): Map<string, AssistantThread> {
  const window = cachedAssistant(ctx, ref);
  return ctx.windows.cached('assistant-threads', ref, () => ({ value: windowThreads(ctx.options, window), weight: window.turns.length * 16 }));
}

/** Every thread of the window's turns, by thread id. */
export function windowThreads(knobs: ResolvedAnalyticsKnobs, { key, turns }: AssistantWindow): Map<string, AssistantThread> {
  const byThread = new Map<string, AssistantTurn[]>();
  for (const turn of turns) {
    const threadId = threadIdOf(knobs, turn);
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
