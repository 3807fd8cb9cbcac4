/**
 * Where recipes come from: the built-in ones (`recipes/` of the checkout or image) and a user
 * directory (`MINTPIPE_RECIPES_DIR`), one directory per recipe holding `query.sql` and
 * `prompt.md`. A user recipe overrides the built-in one of the same name. A recipe that cannot be
 * read is a RecipeError naming its file.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtInRecipesDir, RECIPE_NAME } from '../../config/recipes.js';
import { readProblem } from '../read-problem.js';
import { parseRecipe, RecipeError, type Recipe } from './recipe.js';

export { builtInRecipesDir } from '../../config/recipes.js';


function names(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && RECIPE_NAME.test(e.name))
    .map((e) => e.name)
    .sort();
}

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new RecipeError(`${path}: cannot read the recipe file (${readProblem(err)})`);
  }
}

function readRecipe(name: string, dir: string, builtIn: boolean): Recipe {
  const sqlPath = join(dir, 'query.sql');
  const templatePath = join(dir, 'prompt.md');
  return parseRecipe(name, dir, { sql: read(sqlPath), template: read(templatePath), sqlPath, templatePath }, builtIn);
}

/** Every recipe by name, user recipes over built-in ones. */
export function listRecipeNames(userDir: string | undefined): string[] {
  return [...new Set([...names(builtInRecipesDir()), ...(userDir ? names(userDir) : [])])].sort();
}

export function loadRecipe(name: string, userDir: string | undefined): Recipe {
  if (!RECIPE_NAME.test(name)) throw new RecipeError(`recipe "${name.slice(0, 64)}": not a recipe name (lower-case letters, digits and -)`);
  if (userDir && existsSync(join(userDir, name))) return readRecipe(name, join(userDir, name), false);
  const builtIn = join(builtInRecipesDir(), name);
  if (existsSync(builtIn)) return readRecipe(name, builtIn, true);
  throw new RecipeError(`recipe "${name}": no such recipe (known: ${listRecipeNames(userDir).join(', ')})`);
}
