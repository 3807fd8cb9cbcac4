/**
 * Counts as the spec types them: `number`, described as approximate. Whole numbers and bounds are
 * not promised, so they are findings (see RowContext), not schema errors. Only what no count can
 * be — negative, or not a number — breaks the schema.
 */
import type { Zod } from './dataset.js';

export const approximateCount = (z: Zod) => z.number().min(0, { error: (issue) => `${String(issue.input)} is negative` });

/** `{ human, ai, total }`, the shape of visitors and views rows and totals. */
export const humanAiTotal = (z: Zod) => ({ human: approximateCount(z), ai: approximateCount(z), total: approximateCount(z) });
