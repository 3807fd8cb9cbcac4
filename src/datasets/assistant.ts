/**
 * AI assistant conversations, one row per user turn: cursor (a ULID) + `hasMore`, up to 1000 per
 * page. `responseType` defaults to `answer` when absent, as the docs say. The docs describe a
 * `conversationId` shared by the turns of one conversation that the schema does not list: it is
 * kept in `extra` with any other field beyond the schema.
 */
import type { z } from 'zod';
import { defineDataset, type Zod } from './dataset.js';

const item = (z: Zod) =>
  z.looseObject({
    id: z.string(),
    timestamp: z.string(),
    query: z.string(),
    response: z.string(),
    responseType: z.enum(['answer', 'clarifying_question']).optional(),
    sources: z.array(z.looseObject({ title: z.string(), url: z.string() })),
    resolutionStatus: z.enum(['answered', 'unanswered']),
    queryCategory: z.string().nullable(),
    pageUrl: z.string().nullable(),
  });
const schema = (z: Zod) => z.looseObject({ conversations: z.array(item(z)), nextCursor: z.string().nullable(), hasMore: z.boolean() });
const known = new Set(['id', 'timestamp', 'query', 'response', 'responseType', 'sources', 'resolutionStatus', 'queryCategory', 'pageUrl']);

export const assistant = defineDataset<z.output<ReturnType<typeof schema>>, z.output<ReturnType<typeof item>>>({
  name: 'assistant',
  endpoint: 'assistant',
  pagination: { kind: 'cursor', limit: 1000, until: 'hasMore' },
  schema,
  page: (body) => ({ items: body.conversations, hasMore: body.hasMore, nextCursor: body.nextCursor }),
  table: 'assistant_conversation_rows',
  view: 'assistant_conversations',
  keyColumn: 'id',
  // The spec calls `id` the conversation's identifier and its docs give a conversation one row per
  // turn, at different timestamps: an upstream may repeat `id` on every turn of a conversation.
  keyWith: ['timestamp'],
  row: (it, ctx) => ({
    id: it.id,
    timestamp: ctx.timestamp(`conversation ${it.id} timestamp`, it.timestamp),
    query: it.query,
    response: it.response,
    response_type: it.responseType ?? 'answer',
    resolution_status: it.resolutionStatus,
    query_category: it.queryCategory,
    page_url: it.pageUrl,
    sources: it.sources.map((source) => ({ title: source.title, url: source.url })),
    extra: ctx.extra(it, known),
  }),
});
