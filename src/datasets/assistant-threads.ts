/**
 * Messages of assistant threads: one request per conversation of the window — per distinct
 * `conversationId`, or the turn's `id` where that is absent — listed by the window's complete
 * `assistant` run. Off by default (MINTPIPE_ASSISTANT_THREADS): it costs a request per thread.
 * A thread the upstream does not know (404) or whose id it refuses (400) is a `thread_not_found`
 * finding; the run goes on.
 */
import type { z } from 'zod';
import { defineDataset, type Zod } from './dataset.js';

const message = (z: Zod) => z.looseObject({ id: z.string(), role: z.enum(['user', 'assistant']), content: z.string(), createdAt: z.string() });
const schema = (z: Zod) => z.looseObject({ threadId: z.string(), createdAt: z.string(), messages: z.array(message(z)) });
const known = new Set(['id', 'role', 'content', 'createdAt', 'threadId']);

type Message = z.output<ReturnType<typeof message>> & { threadId: string };

export const assistantThreads = defineDataset<z.output<ReturnType<typeof schema>>, Message>({
  name: 'assistant-threads',
  endpoint: 'assistant/threads',
  pagination: {
    kind: 'fanout',
    source: 'assistant',
    idsSql: (table) =>
      `SELECT DISTINCT if(JSONExtractString(extra, 'conversationId') != '', JSONExtractString(extra, 'conversationId'), id) AS id
       FROM ${table} WHERE run_id = {runId:String} ORDER BY id`,
    endpointFor: (id) => `assistant/threads/${id}`,
  },
  schema,
  page: (body) => ({ items: body.messages.map((m) => ({ ...m, threadId: body.threadId })), hasMore: false }),
  table: 'assistant_message_rows',
  view: 'assistant_messages',
  keyColumn: 'message_id',
  // The spec's message `id` is unique in the transcript it lists: another thread may use it too.
  keyWith: ['thread_id'],
  row: (it, ctx) => ({
    thread_id: it.threadId,
    message_id: it.id,
    role: it.role,
    content: it.content,
    created_at: ctx.timestamp(`message ${it.id} createdAt`, it.createdAt),
    extra: ctx.extra(it, known),
  }),
  requestsPerDayGuess: 100,
});
