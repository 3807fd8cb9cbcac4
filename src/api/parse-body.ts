import type { z } from 'zod';
import type { ApiOperation } from './api-operation.js';
import { describeValue } from './describe-value.js';
import { InvalidResponseError } from './errors/invalid-response-error.js';
import { formatIssues } from './format-issue.js';

/** A 2xx body, parsed and checked against `schema`; anything else is an InvalidResponseError. */
export function parseBody<S extends z.ZodType>(op: ApiOperation, status: number, text: string, schema: S): z.output<S> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new InvalidResponseError({ op, status, problem: `body is not JSON: ${describeValue(text.trim())}` });
  }
  const result = schema.safeParse(data, { reportInput: true });
  if (!result.success) throw new InvalidResponseError({ op, status, problem: formatIssues(result.error.issues) });
  return result.data;
}
