/**
 * Feedback items: cursor + `hasMore`. Items are an `anyOf` of three shapes without a discriminator
 * (contextual adds `helpful, contact`; code_snippet adds `code, filename, lang`; agent and
 * thumbs_only have the common fields only): validated against the union, never picked by `source`,
 * and whatever fields an item carries are kept. `contact` is personal (MINTPIPE_PII).
 */
import type { z } from 'zod';
import { defineDataset, type Zod } from './dataset.js';

const common = (z: Zod) => ({
  id: z.string(),
  path: z.string(),
  comment: z.string().nullable(),
  createdAt: z.string().nullable(),
  source: z.enum(['code_snippet', 'contextual', 'agent', 'thumbs_only']),
  status: z.enum(['pending', 'in_progress', 'resolved', 'dismissed']),
});
const COMMON = ['id', 'path', 'comment', 'createdAt', 'source', 'status'];

function item(z: Zod) {
  const contextual = z.looseObject({ ...common(z), helpful: z.boolean(), contact: z.string().nullable() });
  const codeSnippet = z.looseObject({ ...common(z), code: z.string(), filename: z.string().nullable(), lang: z.string().nullable() });
  return z.union([contextual, codeSnippet, z.looseObject(common(z))]);
}

const schema = (z: Zod) => z.looseObject({ feedback: z.array(item(z)), nextCursor: z.string().nullable(), hasMore: z.boolean() });

type Item = z.output<ReturnType<typeof item>> & { helpful?: boolean; contact?: string | null; code?: string; filename?: string | null; lang?: string | null };

const known = new Set([...COMMON, 'helpful', 'contact', 'code', 'filename', 'lang']);

export const feedback = defineDataset<z.output<ReturnType<typeof schema>>, Item>({
  name: 'feedback',
  endpoint: 'feedback',
  pagination: { kind: 'cursor', limit: 100, until: 'hasMore' },
  schema,
  page: (body) => ({ items: body.feedback, hasMore: body.hasMore, nextCursor: body.nextCursor }),
  table: 'feedback_rows',
  view: 'feedback',
  keyColumn: 'id',
  row: (it, ctx) => ({
    id: it.id,
    path: it.path,
    source: it.source,
    status: it.status,
    comment: it.comment,
    created_at: ctx.timestamp(`feedback ${it.id} createdAt`, it.createdAt),
    helpful: typeof it.helpful === 'boolean' ? it.helpful : null,
    contact: ctx.personal(it.contact),
    code: typeof it.code === 'string' ? it.code : null,
    filename: it.filename ?? null,
    lang: it.lang ?? null,
    extra: ctx.extra(it, known),
  }),
});
