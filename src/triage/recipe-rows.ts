/**
 * A recipe's result rows as prompt rows: checked (project_id, subject, impact, items), ordered by
 * impact (highest first; then project and subject, so the same data gives the same jobs whatever
 * order the engine returned), capped per project, each with its key
 * (`recipe:project:subject`, the dedupe identity) and its source items (for lineage).
 */
import { MAX_KEY_LENGTH } from '../prompts/query-rows.js';
import { RecipeError, type Recipe } from './recipe.js';
import type { QuotedItem } from './reader-text.js';
import { renderPrompt } from './render-prompt.js';

export interface TriageRow {
  projectId: string;
  subject: string;
  impact: number;
  key: string;
  prompt: string;
  /** Ids of the reader input behind it (feedback ids, conversation ids, search terms). */
  sources: string[];
}

export interface TriageOptions {
  days: number;
  /** Most jobs per project. */
  maxJobs: number;
  secrets: ReadonlyArray<string | undefined>;
}

/** Most source ids kept per prompt. */
const MAX_SOURCES = 500;

interface Item extends QuotedItem {
  at: string;
}

function items(value: unknown, fail: (why: string) => RecipeError): Item[] {
  if (!Array.isArray(value)) throw fail('items: expected Array(Tuple(id, text, at))');
  return value.map((v) => {
    const [id, text, at] = (Array.isArray(v) ? v : typeof v === 'object' && v !== null ? Object.values(v) : []) as unknown[];
    if (id === undefined || text === undefined) throw fail('items: each item must be a tuple (id, text, at)');
    return { id: String(id), text: String(text ?? ''), at: String(at ?? '') };
  });
}

const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function triageRows(recipe: Recipe, rows: ReadonlyArray<Record<string, unknown>>, options: TriageOptions): TriageRow[] {
  const fail = (why: string) => new RecipeError(`${recipe.dir}/query.sql: ${why}`);
  const checked = rows.map((row) => {
    const { project_id: projectId, subject, impact } = row;
    if (typeof projectId !== 'string' || projectId === '') throw fail('project_id: expected a non-empty String column');
    if (typeof subject !== 'string') throw fail('subject: expected a String column');
    const n = Number(impact);
    if (!Number.isFinite(n)) throw fail('impact: expected a number column');
    return { row, projectId, subject, impact: n, items: items(row.items, fail) };
  });
  checked.sort((a, b) => b.impact - a.impact || text(a.projectId, b.projectId) || text(a.subject, b.subject));
  const perProject = new Map<string, number>();
  const maxQuotes = recipe.params.max_quotes ?? 5;
  const out: TriageRow[] = [];
  for (const c of checked) {
    const taken = perProject.get(c.projectId) ?? 0;
    if (taken >= options.maxJobs) continue;
    perProject.set(c.projectId, taken + 1);
    // Newest first, then by id: the quotes do not depend on the engine's order either.
    const sorted = [...c.items].sort((a, b) => text(b.at, a.at) || text(a.id, b.id));
    const { items: _items, ...values } = c.row;
    const prompt = renderPrompt(recipe.template, {
      values: { ...values, days: options.days },
      items: sorted,
      maxQuotes,
      secrets: options.secrets,
      templatePath: `${recipe.dir}/prompt.md`,
    });
    const key = `${recipe.name}:${c.projectId}:${c.subject.replace(/[\u0000-\u001f\u007f]/g, ' ')}`.slice(0, MAX_KEY_LENGTH);
    out.push({ projectId: c.projectId, subject: c.subject, impact: c.impact, key, prompt, sources: [...new Set(sorted.map((i) => i.id))].slice(0, MAX_SOURCES) });
  }
  return out;
}
