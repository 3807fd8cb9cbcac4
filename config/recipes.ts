/**
 * What configuration needs to know of triage recipes to check `MINTPIPE_TRIAGE`: how a recipe is
 * named, and where the built-in ones are. Reading a recipe is src/triage's job.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const RECIPE_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** The built-in recipes: `recipes/` at the root of the checkout (from config/ and from dist/cli). */
export function builtInRecipesDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, '..', 'recipes'), join(here, '..', '..', 'recipes')];
  return candidates.find((dir) => existsSync(join(dir, 'feedback-hotspots', 'query.sql'))) ?? candidates[0]!;
}
