/**
 * The rows of a read-only query as prompt rows (`prompts send --from-query`, triage recipes): the
 * same columns and checks as a file's row (prompt-input.ts), plus an optional `key`, the row's own
 * identity across runs (dedupe-keys.ts). A column that is NULL or '' is absent, as SQL has no other
 * way to leave one out. Rows are numbered from 1 (`query row N: reason`); bad rows are returned, not
 * thrown, so good ones still go.
 */
import { planChains, type PlannedPrompt } from './plan-chains.js';
import { validatePrompt, type LineProblem, type PromptLimits, type PromptLine } from './prompt-input.js';

/** Longest accepted key, in characters. */
export const MAX_KEY_LENGTH = 300;

export interface QueryPrompts {
  /** Good rows, in result order (`line` is the 1-based row number), with what each does. */
  prompts: Array<PlannedPrompt<PromptLine>>;
  problems: LineProblem[];
}

/** The row's key, undefined when absent, or the problem with it. */
function checkKey(value: unknown): string | undefined | { reason: string } {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') return { reason: `key: expected a string, got ${typeof value}` };
  const key = value.trim();
  if (key === '') return { reason: 'key: blank (leave it out, NULL or empty, for none)' };
  if (key.length > MAX_KEY_LENGTH) return { reason: `key: longer than ${MAX_KEY_LENGTH} characters` };
  if (/[\u0000-\u001f\u007f]/.test(key)) return { reason: 'key: contains control characters' };
  return key;
}

export function promptsFromQueryRows(rows: ReadonlyArray<Record<string, unknown>>, limits: PromptLimits, options: { allowCreate?: boolean } = {}): QueryPrompts {
  const good: PromptLine[] = [];
  const problems: LineProblem[] = [];
  const keyRows = new Map<string, number>();
  rows.forEach((row, index) => {
    const line = index + 1;
    const { key: rawKey, ...fields } = row;
    const checked = validatePrompt(fields, limits, { emptyIsAbsent: true });
    if ('reason' in checked) return void problems.push({ line, ...checked });
    const key = checkKey(rawKey);
    if (typeof key === 'object') return void problems.push({ line, ...key, ...(checked.chain === undefined ? {} : { chain: checked.chain }) });
    if (key !== undefined) {
      // Two rows with one key in one run: the second would be the first's prompt under another text.
      const scoped = `${checked.projectId}\u0000${key}`;
      const first = keyRows.get(scoped);
      if (first !== undefined) return void problems.push({ line, reason: `key: "${key}" repeats row ${first} of this project` });
      keyRows.set(scoped, line);
    }
    good.push({ ...checked, ...(key === undefined ? {} : { key }), line });
  });
  const plan = planChains(good, { allowCreate: options.allowCreate, refused: problems, label: (i) => `row ${good[i]!.line}` });
  const planProblems = plan.problems.map(({ index, reason }) => ({ line: good[index]!.line, reason }));
  return { prompts: plan.prompts, problems: [...problems, ...planProblems].sort((a, b) => a.line - b.line) };
}
