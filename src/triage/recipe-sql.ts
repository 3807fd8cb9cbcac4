/**
 * A recipe's query with its placeholders filled in as literals (the read path takes SQL only):
 * `{project:String}` ('' for every project), `{since:Date}` (the first day of the window) and each
 * `-- param` as `{name:UInt32}`, overridden by the caller.
 */
import { stringLiteral } from '../warehouse/sql-text.js';
import { RecipeError, type Recipe } from './recipe.js';

export interface RecipeInputs {
  /** '' for every project. */
  project: string;
  /** YYYY-MM-DD. */
  sinceDate: string;
  /** Overrides of the recipe's params. */
  params?: Record<string, number>;
}

export function recipeSql(recipe: Recipe, inputs: RecipeInputs): string {
  const params = { ...recipe.params, ...inputs.params };
  const where = `${recipe.dir}/query.sql`;
  return recipe.sql.replace(/\{([A-Za-z_][A-Za-z0-9_]*):([^{}]+)\}/g, (_match, name: string, type: string) => {
    const t = type.trim();
    if (name === 'project' && t === 'String') return stringLiteral(inputs.project);
    if (name === 'since' && t === 'Date') return `toDate(${stringLiteral(inputs.sinceDate)})`;
    if (name in params && /^U?Int(8|16|32|64)$/.test(t)) return String(params[name]);
    throw new RecipeError(`${where}: {${name}:${t}} is not a parameter (project:String, since:Date, or a "-- param" as UInt32)`);
  });
}
