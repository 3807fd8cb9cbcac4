/**
 * A schema with a fast path for the bodies that are plainly valid. A page of 250 rows through zod
 * costs ~0.25 ms and a copy of every row (zod returns new objects): a twentieth of an export's main
 * thread (`npm run bench`). A hand-written check of the usual shape accepts a body as it is; anything
 * it does not accept goes through zod, which decides and words the error. The check must accept only
 * what the schema accepts, and the schema must not transform what it accepts (so the body is its own
 * output): test/datasets/quick-check.unit.test.ts holds both to that.
 */
import type { z } from 'zod';

export function withQuickCheck<S extends z.ZodType>(schema: S, accepts: (body: unknown) => boolean): S {
  const fast = Object.create(schema) as S;
  const safeParse = (body: unknown, params?: Parameters<S['safeParse']>[1]) =>
    accepts(body) ? { success: true as const, data: body as z.output<S> } : schema.safeParse(body, params);
  Object.defineProperty(fast, 'safeParse', { value: safeParse });
  return fast;
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What `approximateCount` accepts: a finite number, not negative. */
export const isApproximateCount = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value) && value >= 0;
