import type { z } from 'zod';
import type { ApiOperation } from './api-operation.js';
import { describeValue } from './describe-value.js';
import { InvalidResponseError } from './errors/invalid-response-error.js';
import { formatIssues } from './format-issue.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';
import { parseJsonRepairingText } from './repair-text.js';

export interface ParsedBody<T> {
  value: T;
  /** JSON paths of strings whose invalid Unicode was replaced with U+FFFD. */
  repaired: string[];
}

/** A 2xx body, parsed and checked against `schema`; anything else (also a body nested too deep) is an InvalidResponseError. */
export function parseBody<S extends z.ZodType>(op: ApiOperation, status: number, text: string, schema: S): z.output<S> {
  return parseBodyRepairingText(op, status, text, schema).value;
}

/** Like {@link parseBody}, also reporting the strings whose invalid Unicode was repaired. */
export function parseBodyRepairingText<S extends z.ZodType>(op: ApiOperation, status: number, text: string, schema: S): ParsedBody<z.output<S>> {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new InvalidResponseError({ op, status, problem: `body nests objects or arrays deeper than ${MAX_JSON_DEPTH} levels` });
  }
  let parsed;
  try {
    parsed = parseJsonRepairingText(text);
  } catch {
    throw new InvalidResponseError({ op, status, problem: `body is not JSON: ${describeValue(text.trim())}`, transient: true });
  }
  const result = schema.safeParse(parsed.value, { reportInput: true });
  if (!result.success) throw new InvalidResponseError({ op, status, problem: formatIssues(result.error.issues) });
  return { value: result.data, repaired: parsed.repaired };
}
