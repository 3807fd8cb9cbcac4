/**
 * A dataset's response schema, built from its declaration on first use. Only what validates pages
 * imports this module, and with it zod (see `Zod` in dataset.ts).
 */
import { z } from 'zod';
import type { Dataset } from './dataset.js';

const built = new WeakMap<Dataset, z.ZodType>();

export function schemaOf(dataset: Dataset): z.ZodType {
  let schema = built.get(dataset);
  if (!schema) built.set(dataset, (schema = dataset.schema(z)));
  return schema;
}
