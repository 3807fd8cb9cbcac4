/**
 * A triage recipe: a read-only query over the public views (`query.sql`) and the prompt it writes
 * per result row (`prompt.md`), kept as files a user can copy and edit. The query's header names
 * what it is (`-- description:`), the datasets it reads (`-- reads:`, for the nightly run to wait
 * for) and its numeric parameters with their defaults (`-- param NAME: N`).
 */
import { DATASET_NAMES, type DatasetName } from '../datasets/index.js';
import { UsageError } from '../errors.js';

export interface Recipe {
  name: string;
  description: string;
  /** Datasets the query reads: the nightly run waits for their windows. */
  reads: DatasetName[];
  /** Numeric parameters with their defaults (`{name:UInt32}` in the query). */
  params: Record<string, number>;
  sql: string;
  template: string;
  /** Where it was read from (named in errors). */
  dir: string;
  builtIn: boolean;
}

/** A recipe file that cannot be used: the message names the file and what is wrong, on one line. */
export class RecipeError extends UsageError {
  override name = 'RecipeError';
}

export { RECIPE_NAME } from '../../config/recipes.js';

/** Placeholders every template may use besides the query's columns. */
export const BUILT_IN_PLACEHOLDERS = ['quotes', 'days', 'project_id', 'subject'] as const;

export function parseRecipe(name: string, dir: string, files: { sql: string; template: string; sqlPath: string; templatePath: string }, builtIn: boolean): Recipe {
  const fail = (path: string, why: string) => new RecipeError(`${path}: ${why}`);
  let description = '';
  let reads: DatasetName[] | undefined;
  const params: Record<string, number> = {};
  for (const line of files.sql.split('\n')) {
    const header = /^--\s*(description|reads|param)\b\s*(.*)$/.exec(line.trim());
    if (!header) continue;
    const [, field, value] = header as unknown as [string, string, string];
    const rest = value.replace(/^:\s*/, '').trim();
    if (field === 'description') description = rest;
    else if (field === 'reads') {
      reads = rest.split(',').map((d) => d.trim()).filter(Boolean) as DatasetName[];
      const unknown = reads.find((d) => !(DATASET_NAMES as readonly string[]).includes(d));
      if (unknown !== undefined) throw fail(files.sqlPath, `reads: unknown dataset "${unknown.slice(0, 40)}" (one of: ${DATASET_NAMES.join(', ')})`);
    } else {
      const param = /^([a-z_][a-z0-9_]*)\s*:\s*(\d{1,9})$/.exec(value.trim());
      if (!param) throw fail(files.sqlPath, `param: expected "-- param name: N" (a whole number), got "${value.trim().slice(0, 60)}"`);
      params[param[1]!] = Number(param[2]);
    }
  }
  if (reads === undefined || reads.length === 0) throw fail(files.sqlPath, 'no "-- reads: dataset, …" line (the datasets the query reads)');
  if (files.sql.replace(/^\s*--.*$/gm, '').trim() === '') throw fail(files.sqlPath, 'no query');
  if (!files.template.includes('{{quotes}}')) throw fail(files.templatePath, 'the template has no {{quotes}} (where the reader input goes, fenced)');
  const bad = /\{\{(?![a-z_][a-z0-9_]*\}\})/.exec(files.template);
  if (bad) throw fail(files.templatePath, 'a {{ that is not a placeholder ({{name}}, lower-case letters, digits and _)');
  return { name, description, reads, params, sql: files.sql, template: files.template, dir, builtIn };
}
