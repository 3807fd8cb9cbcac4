import type { z } from 'zod';
import { describeValue } from './describe-value.js';

/** `['visitors', 3, 'total']` → `visitors[3].total`; the root is `body`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? 'body' : out;
}

/** One line naming the field and what is wrong with it. Needs issues parsed with `reportInput`. */
export function formatIssue(issue: z.core.$ZodIssue): string {
  const where = formatIssuePath(issue.path);
  const input: unknown = 'input' in issue ? issue.input : undefined;
  switch (issue.code) {
    case 'invalid_type':
      return input === undefined
        ? `${where}: missing (expected ${issue.expected})`
        : `${where}: expected ${issue.expected}, got ${describeValue(input)}`;
    case 'invalid_value':
      return `${where}: expected one of ${issue.values.map((v) => JSON.stringify(v)).join('|')}, got ${describeValue(input)}`;
    default:
      return `${where}: ${issue.message}`;
  }
}

/** The first issue in full, and how many more there are. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  const [first, ...rest] = issues;
  if (!first) return 'body: invalid';
  return rest.length > 0 ? `${formatIssue(first)} (and ${rest.length} more problem${rest.length > 1 ? 's' : ''})` : formatIssue(first);
}
